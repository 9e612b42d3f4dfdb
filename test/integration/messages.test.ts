/** The Messages interface as Anthropic clients see it: headers, errors, count_tokens, models, billing of cache writes. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { expectedCostMicro, startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;
let client: Anthropic;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(5);
  const auth = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  await gw.admin.line({
    name: 'claude',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, 'usage-in=1000,usage-cached=300,usage-cache-write=200,usage-out=50'),
    models: ['claude-sonnet-4-6'],
    ...auth,
  });
  await gw.admin.line({
    name: 'plain',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: ['claude-haiku-4-5'],
    ...auth,
  });
  await gw.admin.line({
    name: 'slow-oai',
    baseUrl: scenarioBase(mock, 'chunk-delay=40,words=200'),
    models: ['claude-opus-4-5'],
  });
  await gw.admin.line({
    name: 'drops-oai',
    baseUrl: scenarioBase(mock, 'drop-after=4,words=20'),
    models: ['claude-opus-4-6'],
  });
  await gw.admin.line({
    name: 'limited',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, 'status=429,retry-after=3'),
    models: ['claude-opus-4-7'],
    ...auth,
  });
  key = await gw.admin.key('claude-code');
  client = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
});

after(async () => {
  await gw.close();
  await mock.close();
});

async function post(
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: r.status, headers: r.headers, body: await r.json() };
}

describe('requests as Claude Code sends them', () => {
  test('?beta=true, x-api-key, anthropic-beta passed on, a role:"system" message mid-conversation', async () => {
    const r = await post(
      '/v1/messages?beta=true',
      {
        'x-api-key': key,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
      },
      {
        model: 'claude-haiku-4-5',
        max_tokens: 64000,
        system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'first', cache_control: { type: 'ephemeral' } }] },
          { role: 'assistant', content: 'ok' },
          { role: 'system', content: 'mid-conversation note' },
          { role: 'user', content: 'second' },
        ],
        thinking: { type: 'adaptive' },
        metadata: { user_id: '{"session":"abc"}' },
      },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.type, 'message');
    const sent = mock.requests.at(-1)!;
    assert.equal(sent.headers['anthropic-beta'], 'claude-code-20250219,interleaved-thinking-2025-05-14');
    assert.equal(sent.headers['x-api-key'], 'upstream-secret', "the line's credential, never the client's key");
    assert.equal(sent.body.messages[2].role, 'system', 'pass-through keeps the body as sent');
  });

  test('anthropic-version is required (any date)', async () => {
    const body = { model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
    const missing = await post('/v1/messages', { 'x-api-key': key }, body);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.type, 'error');
    assert.equal(missing.body.error.type, 'invalid_request_error');
    assert.match(missing.body.error.message, /anthropic-version/);
    assert.equal(
      (await post('/v1/messages', { 'x-api-key': key, 'anthropic-version': '2026-10-21' }, body)).status,
      200,
    );
  });
});

describe('errors in Anthropic shape', () => {
  const body = { model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
  for (const [name, headers, status, type] of [
    ['no key', { 'anthropic-version': '2023-06-01' }, 401, 'authentication_error'],
    ['bad key', { 'x-api-key': 'sk-nope', 'anthropic-version': '2023-06-01' }, 401, 'authentication_error'],
  ] as const) {
    test(name, async () => {
      const r = await post('/v1/messages', headers, body);
      assert.equal(r.status, status);
      assert.deepEqual(Object.keys(r.body).sort(), ['error', 'type']);
      assert.equal(r.body.error.type, type);
    });
  }

  test('unknown model: 404 not_found_error through the SDK', async () => {
    await assert.rejects(
      client.messages.create({ model: 'claude-nope', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.NotFoundError, String(e));
        assert.equal((e as any).error.error.type, 'not_found_error');
        return true;
      },
    );
  });

  test('missing max_tokens: 400 invalid_request_error', async () => {
    const r = await post(
      '/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'x' }] },
    );
    assert.equal(r.status, 400);
    assert.equal(r.body.error.type, 'invalid_request_error');
    assert.match(r.body.error.message, /max_tokens/);
  });

  test('quota: 402 billing_error, not retried', async () => {
    const capped = new Anthropic({
      baseURL: gw.url,
      apiKey: await gw.admin.key('capped', { quotaMicro: 10 }),
      maxRetries: 2,
    });
    const before = mock.requests.length;
    await assert.rejects(
      capped.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (e: unknown) => {
        assert.equal((e as any).status, 402);
        assert.equal((e as any).error.error.type, 'billing_error');
        return true;
      },
    );
    assert.equal(mock.requests.length, before);
  });

  test('upstream 429: rate_limit_error with retry-after', async () => {
    const r = await post(
      '/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { model: 'claude-opus-4-7', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
    );
    assert.equal(r.status, 429);
    assert.equal(r.body.error.type, 'rate_limit_error');
    assert.equal(r.headers.get('retry-after'), '3');
  });

  test('the wrong base URL: /v1 twice', async () => {
    const r = await post('/v1/v1/messages', { 'x-api-key': key, 'anthropic-version': '2023-06-01' }, {});
    assert.equal(r.status, 404);
    assert.equal(r.body.error.type, 'not_found_error');
    assert.match(r.body.error.message, new RegExp(`Set the base URL to ${gw.url};`));
  });
});

describe('billing', () => {
  test('cache reads and cache writes are billed at their own prices', async () => {
    const m = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'cached' }],
    });
    assert.deepEqual(
      [m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.cache_creation_input_tokens],
      [500, 300, 200],
    );
    const [row] = await gw.admin.logs({ limit: 1 });
    assert.deepEqual(
      [row!.usage.inputTokens, row!.usage.cacheReadTokens, row!.usage.cacheWriteTokens, row!.usage.outputTokens],
      [500, 300, 200, 50],
    );
    const prices = (await gw.admin.modelOf('claude-sonnet-4-6')).prices;
    // 500 × $3 + 300 × $0.30 + 200 × $3.75 + 50 × $15, per million
    assert.equal(row!.costMicro, expectedCostMicro({ input: 1000, cached: 300, cacheWrite: 200, output: 50 }, prices));
    assert.equal(row!.costMicro, 1500 + 90 + 750 + 750);
  });

  test('a client that hangs up on a translated stream: upstream aborted, produced tokens billed', async () => {
    const aborted = mock.aborted;
    const stream = client.messages.stream({
      model: 'claude-opus-4-5',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'long' }],
    });
    let deltas = 0;
    for await (const ev of stream) {
      if (ev.type === 'content_block_delta' && ++deltas === 5) break;
    }
    await waitFor(() => mock.aborted === aborted + 1, 'the upstream abort');
    // The model's own row: a 499 row of another test cannot end the wait.
    await waitFor(
      async () => (await gw.admin.logs({ model: 'claude-opus-4-5', limit: 1 }))[0]?.status === 499,
      'the ledger row',
    );
    const [row] = await gw.admin.logs({ model: 'claude-opus-4-5', limit: 1 });
    assert.equal(row!.usageEstimated, true);
    assert.ok(row!.usage.outputTokens >= 3 && row!.usage.outputTokens < 60, `output ${row!.usage.outputTokens}`);
    assert.ok(
      row!.usage.inputTokens > 0 && row!.costMicro > 0,
      `input ${row!.usage.inputTokens}, cost ${row!.costMicro}`,
    );
  });

  test('an upstream that drops a translated stream: an Anthropic error event, produced tokens billed', async () => {
    const stream = client.messages.stream({
      model: 'claude-opus-4-6',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'x' }],
    });
    await assert.rejects(stream.finalMessage(), (e: unknown) => {
      assert.match(String((e as Error).message), /Upstream error/);
      return true;
    });
    await waitFor(
      async () => (await gw.admin.logs({ model: 'claude-opus-4-6', limit: 1 }))[0]?.status === 502,
      'the ledger row',
    );
    const [row] = await gw.admin.logs({ model: 'claude-opus-4-6', limit: 1 });
    assert.ok(row!.costMicro > 0, 'billed');
    assert.equal((await gw.admin.wallet()).heldMicro, 0);
    assert.equal((await gw.admin.doctor()).ok, true);
  });
});

describe('count_tokens and models', () => {
  test('countTokens is answered locally, is not billed, and is a real count', async () => {
    const before = mock.requests.length;
    const rowsBefore = (await gw.admin.logs()).length;
    const small = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const big = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      system: 'You are a careful assistant. '.repeat(50),
      messages: [{ role: 'user', content: 'Summarise the following text. '.repeat(100) }],
      tools: [
        {
          name: 'read_file',
          description: 'Read a file from disk',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
    });
    assert.ok(small.input_tokens > 0, 'a count');
    assert.ok(big.input_tokens > 700 && big.input_tokens < 2000, `big ${big.input_tokens}`);
    assert.equal(mock.requests.length, before, 'never forwarded');
    assert.equal((await gw.admin.logs()).length, rowsBefore, 'never billed or logged');
  });

  test('an image counts by its size', async () => {
    // A 1×1 PNG is a handful of tokens; a 1000×1000 one about 1,333.
    const png = (w: number, h: number): string => {
      const b = Buffer.alloc(33);
      b.writeUInt32BE(0x89504e47, 0);
      b.writeUInt32BE(0x0d0a1a0a, 4);
      b.writeUInt32BE(13, 8);
      b.write('IHDR', 12, 'ascii');
      b.writeUInt32BE(w, 16);
      b.writeUInt32BE(h, 20);
      return b.toString('base64');
    };
    const count = async (w: number, h: number): Promise<number> =>
      (
        await client.messages.countTokens({
          model: 'claude-sonnet-4-6',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(w, h) } },
                { type: 'text', text: 'what is it?' },
              ],
            },
          ],
        })
      ).input_tokens;
    const tiny = await count(1, 1);
    const large = await count(1000, 1000);
    assert.ok(large - tiny > 1200 && large - tiny < 1700, `tiny ${tiny}, large ${large}`);
  });

  test('GET /v1/models in Anthropic shape for Anthropic clients', async () => {
    const page = await client.models.list();
    assert.ok(page.data.length > 20, `${page.data.length} models`);
    assert.equal(page.data[0]!.type, 'model');
    assert.ok(
      page.data.every((m) => typeof m.display_name === 'string' && typeof m.created_at === 'string'),
      'every model has a display name and a date',
    );
    const one = await client.models.retrieve('claude-haiku-4-5');
    assert.equal(one.id, 'claude-haiku-4-5');
    const openaiShape = (await (
      await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { object: string };
    assert.equal(openaiShape.object, 'list');
  });
});
