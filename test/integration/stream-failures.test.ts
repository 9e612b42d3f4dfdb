/** Streams that end badly: the upstream drops mid-stream, or the client hangs up. What was produced is billed. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  await gw.admin.line({ name: 'drops', baseUrl: scenarioBase(mock, 'drop-after=4,words=20'), models: ['gpt-4o-mini'] });
  await gw.admin.line({ name: 'slow', baseUrl: scenarioBase(mock, 'chunk-delay=40,words=200'), models: ['gpt-4o'] });
  await gw.admin.line({ name: 'garbled', baseUrl: scenarioBase(mock, 'malformed'), models: ['gpt-4.1'] });
  await gw.admin.line({
    name: 'idle',
    baseUrl: scenarioBase(mock, 'chunk-delay=2000'),
    models: ['gpt-4.1-mini'],
    timeouts: { idleMs: 300 },
  });
  await gw.admin.line({ name: 'no-done', baseUrl: scenarioBase(mock, 'no-done,words=6'), models: ['gpt-5-nano'] });
  key = await gw.admin.key('k');
});

after(async () => {
  await gw.close();
  await mock.close();
});

test('the upstream drops mid-stream: the client gets an error event, the produced tokens are billed', async () => {
  const stream = await gw
    .openai(key)
    .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'go' }], stream: true });
  let text = '';
  await assert.rejects(
    (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    })(),
    (err: unknown) => err instanceof OpenAI.APIError && /Upstream error/.test(err.message),
  );
  assert.ok(text.length > 0, 'some text arrived before the drop');
  await waitFor(
    async () => (await gw.admin.logs({ model: 'gpt-4o-mini', limit: 1 }))[0]?.status === 502,
    'the ledger row',
  );
  const [row] = await gw.admin.logs({ model: 'gpt-4o-mini', limit: 1 });
  assert.equal(row!.status, 502);
  assert.equal(row!.usageEstimated, true);
  assert.ok(row!.usage.outputTokens >= 1, 'the produced tokens are counted');
  assert.ok(row!.usage.inputTokens >= 1, 'the prompt is counted');
  assert.ok(row!.costMicro > 0, 'billed');
  assert.equal((await gw.admin.wallet()).heldMicro, 0);
  assert.equal((await gw.admin.doctor()).ok, true);
});

test('the client hangs up mid-stream: the upstream request is aborted, the produced tokens are billed', async () => {
  const abortedBefore = mock.aborted;
  const stream = await gw.openai(key).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'long answer please' }],
    stream: true,
  });
  let chunks = 0;
  for await (const _ of stream) {
    if (++chunks === 5) break; // the SDK aborts the HTTP request when the loop is left
  }
  await waitFor(() => mock.aborted === abortedBefore + 1, 'the upstream request to be aborted');
  await waitFor(async () => (await gw.admin.logs({ model: 'gpt-4o', limit: 1 }))[0]?.status === 499, 'the ledger row');
  const [row] = await gw.admin.logs({ model: 'gpt-4o', limit: 1 });
  assert.equal(row!.errorCode, 'client_closed');
  assert.equal(row!.usageEstimated, true);
  // About 5 words had been produced out of 200: the bill is for what was produced, not for all of it.
  assert.ok(row!.usage.outputTokens >= 3 && row!.usage.outputTokens < 60, `output ${row!.usage.outputTokens}`);
  assert.ok(row!.costMicro > 0, 'billed');
  assert.equal((await gw.admin.wallet()).heldMicro, 0);
  assert.equal(mock.inFlight(), 0);
});

test('the client hangs up before a non-streamed answer: the upstream request is aborted', async () => {
  await gw.admin.line({ name: 'stall', baseUrl: scenarioBase(mock, 'delay=5000'), models: ['gpt-5-mini'] });
  const abortedBefore = mock.aborted;
  const controller = new AbortController();
  const p = gw
    .openai(key)
    .chat.completions.create(
      { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'wait' }] },
      { signal: controller.signal },
    );
  await waitFor(() => mock.inFlight() === 1, 'the request to reach the upstream');
  controller.abort();
  await assert.rejects(p);
  await waitFor(() => mock.aborted === abortedBefore + 1, 'the upstream request to be aborted');
  // This model's own row: the 499 row of the test before cannot end the wait.
  await waitFor(
    async () => (await gw.admin.logs({ model: 'gpt-5-mini', limit: 1 }))[0]?.status === 499,
    'the ledger row',
  );
  const [row] = await gw.admin.logs({ model: 'gpt-5-mini', limit: 1 });
  assert.equal(row!.errorCode, 'client_closed');
  // The upstream had read the prompt, so the prompt is billed; nothing was produced.
  assert.equal(row!.usage.outputTokens, 0);
  assert.ok(
    row!.usage.inputTokens > 0 && row!.costMicro > 0,
    `input ${row!.usage.inputTokens}, cost ${row!.costMicro}`,
  );
  assert.equal((await gw.admin.wallet()).heldMicro, 0);
});

test('a malformed stream event ends the stream with an error and is logged', async () => {
  const stream = await gw
    .openai(key)
    .chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'x' }], stream: true });
  await assert.rejects(async () => {
    for await (const _ of stream) void _;
  }, /not valid JSON/);
  await waitFor(
    async () => (await gw.admin.logs({ model: 'gpt-4.1', limit: 1 }))[0]?.errorCode === 'upstream_malformed',
    'the ledger row',
  );
  const [row] = await gw.admin.logs({ model: 'gpt-4.1', limit: 1 });
  assert.equal(row!.errorCode, 'upstream_malformed');
  assert.equal((await gw.admin.wallet()).heldMicro, 0);
});

test('an upstream that goes silent mid-stream hits the idle timeout', async () => {
  const stream = await gw
    .openai(key)
    .chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'x' }], stream: true });
  await assert.rejects(async () => {
    for await (const _ of stream) void _;
  }, /stopped sending/);
  await waitFor(
    async () => (await gw.admin.logs({ model: 'gpt-4.1-mini', limit: 1 }))[0]?.status === 504,
    'the ledger row',
  );
  const [row] = await gw.admin.logs({ model: 'gpt-4.1-mini', limit: 1 });
  assert.equal(row!.status, 504);
  assert.equal(row!.errorCode, 'upstream_idle_timeout');
});

test('an upstream that ends a finished stream without [DONE]: the client gets a whole stream, billed from the usage it reported', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-5-nano',
      messages: [{ role: 'user', content: 'six words please' }],
      stream: true,
    }),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(
    text.endsWith('data: [DONE]\n\n'),
    `the stream ends with its terminator: ${JSON.stringify(text.slice(-80))}`,
  );
  assert.ok(!text.includes('"usage":{'), 'the usage chunk Tollgate asked for on its own behalf is not passed on');
  const sent = mock.requests.at(-1)!;
  assert.equal(sent.body.stream_options.include_usage, true);
  const [row] = await gw.admin.logs({ model: 'gpt-5-nano', limit: 1 });
  assert.equal(row!.status, 200);
  assert.equal(row!.errorCode, null);
  assert.equal(row!.usageEstimated, false);
  assert.ok(
    row!.usage.outputTokens > 0 && row!.costMicro > 0,
    `output ${row!.usage.outputTokens}, cost ${row!.costMicro}`,
  );
  // The same through the official SDK: the stream completes with its finish reason.
  const stream = await gw
    .openai(key)
    .chat.completions.create({ model: 'gpt-5-nano', messages: [{ role: 'user', content: 'again' }], stream: true });
  let finish: string | null | undefined;
  for await (const c of stream) finish = c.choices[0]?.finish_reason ?? finish;
  assert.equal(finish, 'stop');
});
