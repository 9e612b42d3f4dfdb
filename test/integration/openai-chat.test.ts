/** OpenAI chat end to end: the official openai SDK → Tollgate → mock upstream, streaming and not. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type OpenAI from 'openai';
import { expectedCostMicro, startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

/** The `slow-start` line's upstream sends its headers at once, its first event after this pause… */
const FIRST_BYTE_DELAY_MS = 200;
/** …and each of the 8 events after that (5 words, finish, usage, [DONE]) this long after the one before. */
const CHUNK_GAP_MS = 40;
const GAPS_AFTER_FIRST = 8;

let mock: MockUpstream;
let gw: TestGateway;
let client: OpenAI;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(10);
  await gw.admin.line({
    name: 'main',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o-mini', 'gpt-4.1'],
    modelMap: { 'gpt-4.1': 'mock-large' },
  });
  await gw.admin.line({
    name: 'forced',
    baseUrl: scenarioBase(mock, 'usage-in=1000,usage-out=500,usage-cached=200'),
    models: ['gpt-5-mini'],
  });
  await gw.admin.line({
    name: 'slow-start',
    baseUrl: scenarioBase(mock, `first-chunk-delay=${FIRST_BYTE_DELAY_MS},chunk-delay=${CHUNK_GAP_MS},words=5`),
    models: ['gpt-4.1-mini'],
  });
  client = gw.openai(await gw.admin.key('main-key'));
});

after(async () => {
  await gw.close();
  await mock.close();
});

async function lastLog(): Promise<Awaited<ReturnType<TestGateway['admin']['logs']>>[number]> {
  const [row] = await gw.admin.logs({ limit: 1 });
  return row!;
}

describe('non-streaming', () => {
  test('reply text, usage and exact cost in the log', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello there, gateway' }],
    });
    assert.equal(r.choices[0]!.message.content, 'mock reply to: hello there, gateway');
    assert.equal(r.choices[0]!.finish_reason, 'stop');
    const row = await lastLog();
    assert.equal(row.model, 'gpt-4o-mini');
    assert.equal(row.upstreamModel, 'gpt-4o-mini');
    assert.equal(row.line, 'main');
    assert.equal(row.inboundProtocol, 'openai-chat');
    assert.equal(row.upstreamProtocol, 'openai-chat');
    assert.equal(row.stream, false);
    assert.equal(row.status, 200);
    assert.equal(row.usage.inputTokens, r.usage!.prompt_tokens);
    assert.equal(row.usage.outputTokens, r.usage!.completion_tokens);
    assert.equal(row.usageEstimated, false);
    const prices = (await gw.admin.modelOf('gpt-4o-mini')).prices;
    assert.equal(
      row.costMicro,
      expectedCostMicro({ input: r.usage!.prompt_tokens, output: r.usage!.completion_tokens }, prices),
    );
    assert.ok(row.latencyMs >= 0 && row.ttfbMs !== null, `latency ${row.latencyMs}, ttfb ${row.ttfbMs}`);
  });

  test('cached tokens are billed once, at the cache-read price', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'cache me' }],
    });
    assert.equal(r.usage!.prompt_tokens, 1000);
    assert.equal(r.usage!.prompt_tokens_details!.cached_tokens, 200);
    const row = await lastLog();
    assert.deepEqual([row.usage.inputTokens, row.usage.cacheReadTokens, row.usage.outputTokens], [800, 200, 500]);
    const prices = (await gw.admin.modelOf('gpt-5-mini')).prices;
    // 800 × $0.25/M + 200 × $0.025/M + 500 × $2/M = 200 + 5 + 1000 micro-USD
    assert.equal(row.costMicro, expectedCostMicro({ input: 1000, cached: 200, output: 500 }, prices));
    assert.equal(row.costMicro, 1205);
  });

  test('only `model` is rewritten on the way up', async () => {
    const body = {
      model: 'gpt-4.1',
      messages: [{ role: 'user' as const, content: 'map me' }],
      temperature: 0.3,
      seed: 7,
      user: 'u1',
      metadata: { a: 'b' },
    };
    await client.chat.completions.create(body);
    const sent = mock.requests.at(-1)!;
    assert.equal(sent.path, '/v1/chat/completions');
    assert.deepEqual(sent.body, { ...body, model: 'mock-large' });
    assert.equal(sent.headers.authorization, undefined, 'the client key never goes upstream');
    assert.equal((await lastLog()).upstreamModel, 'mock-large');
  });

  test('the wallet is debited by exactly the logged costs', async () => {
    const w = await gw.admin.wallet();
    const spent = (await gw.admin.logs()).reduce((s, r) => s + r.costMicro, 0);
    assert.equal(w.spentMicro, spent);
    assert.equal(w.heldMicro, 0);
    assert.equal((await gw.admin.doctor()).ok, true);
  });
});

describe('streaming', () => {
  test('text arrives in pieces; the usage chunk is hidden from a client that did not ask', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream it' }],
      stream: true,
    });
    let text = '';
    let chunks = 0;
    let sawUsage = false;
    let finish: string | null = null;
    for await (const c of stream) {
      chunks++;
      if (c.usage) sawUsage = true;
      if (c.choices.length === 0) sawUsage = true;
      text += c.choices[0]?.delta.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(text, 'mock reply to: stream it');
    assert.equal(finish, 'stop');
    assert.ok(chunks > 3, `${chunks} chunks`);
    assert.equal(sawUsage, false);
    assert.deepEqual(mock.requests.at(-1)!.body.stream_options, { include_usage: true });
    const row = await lastLog();
    assert.equal(row.stream, true);
    assert.equal(row.status, 200);
    assert.equal(row.usageEstimated, false);
    assert.ok(row.usage.outputTokens > 0, 'output tokens logged');
    assert.ok(row.costMicro > 0, 'billed');
  });

  test('a client that asks for usage gets the usage chunk, and it matches the bill', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'with usage' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of stream) if (c.usage) usage = c.usage;
    assert.equal(usage?.prompt_tokens, 1000);
    assert.equal(usage?.completion_tokens, 500);
    const row = await lastLog();
    assert.equal(row.costMicro, 1205);
  });

  test('a streamed tool call arrives whole, and the tool result round trip works', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'read the readme' }];
    const runner = client.chat.completions.stream({ model: 'gpt-4o-mini', messages, tools });
    const first = await runner.finalChatCompletion();
    const call = first.choices[0]!.message.tool_calls![0]!;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(call.type, 'function');
    if (call.type !== 'function') return;
    assert.equal(call.function.name, 'read_file');
    assert.deepEqual(JSON.parse(call.function.arguments), { path: 'x' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'README contents' });
    const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools, stream: true });
    let text = '';
    for await (const c of second) text += c.choices[0]?.delta.content ?? '';
    assert.equal(text, 'tool result: README contents');
  });

  // Only lower bounds, so a slow machine cannot fail it. A ttfb taken when the upstream's headers
  // arrive is under FIRST_BYTE_DELAY_MS; one taken at the end of the stream equals the latency.
  test('time to first byte is when the first event reaches the client, not the upstream headers or the end', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'ttfb' }],
      stream: true,
    });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    assert.equal(text, 'w1 w2 w3 w4 w5');
    const [row] = await gw.admin.logs({ model: 'gpt-4.1-mini', limit: 1 });
    assert.ok(row, 'the ledger row');
    assert.equal(row.stream, true);
    const { ttfbMs, latencyMs } = row;
    assert.ok(ttfbMs !== null, 'ttfb is logged');
    // 10 ms of slack: a timer may fire a little early against performance.now().
    assert.ok(
      ttfbMs >= FIRST_BYTE_DELAY_MS - 10,
      `ttfb ${ttfbMs} ms: no byte can reach the client before the upstream sends its first event`,
    );
    assert.ok(
      latencyMs >= FIRST_BYTE_DELAY_MS + GAPS_AFTER_FIRST * CHUNK_GAP_MS - 10,
      `latency ${latencyMs} ms covers the whole stream`,
    );
    // The stream went on for GAPS_AFTER_FIRST gaps after the first byte; half of them is a bound that
    // an event loop held up by other work cannot break.
    assert.ok(
      latencyMs - ttfbMs >= (GAPS_AFTER_FIRST / 2) * CHUNK_GAP_MS,
      `ttfb ${ttfbMs} ms, latency ${latencyMs} ms: the first byte came well before the end`,
    );
  });
});

describe('keys in every header form', () => {
  const cases: [string, (k: string) => { headers: Record<string, string>; query: string }][] = [
    ['Authorization: Bearer', (k) => ({ headers: { authorization: `Bearer ${k}` }, query: '' })],
    ['x-api-key', (k) => ({ headers: { 'x-api-key': k }, query: '' })],
    ['x-goog-api-key', (k) => ({ headers: { 'x-goog-api-key': k }, query: '' })],
    ['?key=', (k) => ({ headers: {}, query: `?key=${k}` })],
  ];
  for (const [name, form] of cases) {
    test(name, async () => {
      const key = client.apiKey!;
      const { headers, query } = form(key);
      const res = await fetch(`${gw.url}/v1/chat/completions${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as OpenAI.ChatCompletion).choices[0]!.message.content, 'mock reply to: hi');
    });
  }
});

describe('groups', () => {
  test('GET /v1/models lists exactly the models of the key group', async () => {
    await gw.admin.group('narrow', '1', ['gpt-4o-mini', 'gpt-5-mini']);
    const narrow = gw.openai(await gw.admin.key('narrow-key', { group: 'narrow' }));
    const ids = [];
    for await (const m of narrow.models.list()) ids.push(m.id);
    assert.deepEqual(ids.sort(), ['gpt-4o-mini', 'gpt-5-mini']);
    const all = [];
    for await (const m of client.models.list()) all.push(m.id);
    assert.ok(all.length > 20 && all.includes('gpt-4.1') && all.includes('claude-sonnet-4-5'), `${all.length} models`);
    const one = await narrow.models.retrieve('gpt-5-mini');
    assert.equal(one.id, 'gpt-5-mini');
  });

  test('a group multiplier scales the cost', async () => {
    await gw.admin.group('premium', '1.5');
    const premium = gw.openai(await gw.admin.key('premium-key', { group: 'premium' }));
    await premium.chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'x' }] });
    const row = await lastLog();
    assert.equal(row.keyName, 'premium-key');
    const prices = (await gw.admin.modelOf('gpt-5-mini')).prices;
    assert.equal(row.costMicro, expectedCostMicro({ input: 1000, cached: 200, output: 500 }, prices, 1.5));
    assert.equal(row.costMicro, Math.ceil(1205 * 1.5));
  });
});

describe('probes', () => {
  test('HEAD / and GET / answer at once, without a key', async () => {
    const head = await fetch(`${gw.url}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const get = await fetch(`${gw.url}/`);
    assert.equal(get.status, 200);
    assert.deepEqual(await get.json(), { name: 'Tollgate', ok: true });
  });
});
