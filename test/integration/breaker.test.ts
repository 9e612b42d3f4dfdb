/**
 * A breaker that always recovers, driven as clients drive the gateway: a half-open probe ends open
 * or closed whatever happens to it (the client hangs up, the upstream answers 4xx), Tollgate's own
 * failures never count against a line, and an upstream's retry-after holds a line 10 minutes at most.
 * Each test has its own model, so one test's breaker cannot touch another's.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let client: OpenAI;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  // Short enough to wait out in a test; the breaker's behaviour does not depend on its length.
  gw.running.gateway.health.baseCooldownMs = 200;
  await gw.admin.topup(10);
  client = gw.openai(await gw.admin.key('k'));
});

after(async () => {
  await gw.close();
  await mock.close();
});

async function health(name: string): Promise<{ state: string; failures: number; waitMs: number }> {
  return (await gw.admin.client.call('listLines')).lines.find((l) => l.name === name)!.health;
}

function ask(model: string, signal?: AbortSignal): Promise<OpenAI.ChatCompletion> {
  return client.chat.completions.create(
    { model, messages: [{ role: 'user', content: 'hello' }] },
    signal ? { signal } : {},
  );
}

/** A line for `model` that fails until its breaker opens, then waits out the cool-down: the next request probes it. */
async function halfOpenLine(name: string, model: string): Promise<void> {
  await gw.admin.line({ name, baseUrl: scenarioBase(mock, 'status=500'), models: [model] });
  for (let i = 0; i < 3; i++)
    await assert.rejects(ask(model), (e: unknown) => (e as { status: number }).status === 502);
  assert.equal((await health(name)).state, 'open');
  await waitFor(async () => (await health(name)).state === 'half-open', 'the cool-down to end');
}

async function pointAt(name: string, baseUrl: string): Promise<void> {
  await gw.admin.client.call('updateLine', { params: { name }, body: { baseUrl } });
}

test('a probe the client hangs up on leaves the line open, not stuck: the next probe reaches the upstream', async () => {
  await halfOpenLine('hung', 'gpt-4o');
  await pointAt('hung', scenarioBase(mock, 'delay=60000'));
  const before = mock.requests.length;
  const abort = new AbortController();
  const probe = ask('gpt-4o', abort.signal);
  await waitFor(() => mock.requests.length > before, 'the probe to reach the upstream');
  abort.abort();
  await assert.rejects(probe);
  await waitFor(async () => (await health('hung')).state === 'open', 'the line to open again');
  await pointAt('hung', `${mock.url}/v1`);
  await waitFor(async () => (await health('hung')).state === 'half-open', 'the cool-down to end');
  assert.equal((await ask('gpt-4o')).choices[0]!.message.content, 'mock reply to: hello');
  assert.equal((await health('hung')).state, 'closed');
});

test('a probe the upstream answers with a 4xx closes the breaker: the upstream is up', async () => {
  await halfOpenLine('picky', 'gpt-4.1');
  await pointAt('picky', scenarioBase(mock, 'status=400'));
  await assert.rejects(ask('gpt-4.1'), (e: unknown) => (e as { status: number }).status === 400);
  assert.deepEqual(await health('picky'), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
  await pointAt('picky', `${mock.url}/v1`);
  assert.equal((await ask('gpt-4.1')).choices[0]!.message.content, 'mock reply to: hello');
});

test("a body Tollgate cannot translate is the client's 400, and never counts against the line", async () => {
  await gw.admin.line({
    name: 'deep',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: ['claude-sonnet-4-5'],
    apiKey: 'mock-upstream-key',
  });
  // A tool schema 10,000 levels deep: JSON.parse reads it, re-encoding it for Messages overflows the stack.
  const schema = '{"type":"object","properties":{"a":'.repeat(10_000) + '{"type":"string"}' + '}}'.repeat(10_000);
  const body = `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${schema}}}]}`;
  const before = mock.requests.length;
  for (let i = 0; i < 4; i++) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body,
    });
    assert.equal(r.status, 400);
    const error = ((await r.json()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'body_too_deep');
  }
  assert.equal(mock.requests.length, before, 'nothing was sent upstream');
  assert.deepEqual(await health('deep'), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
  const served = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(served.status, 200, 'the line still serves');
});

test('an upstream retry-after of 99999999 s or a date in 2099 holds the line 10 minutes at most', async () => {
  const cases = [
    ['forever', '99999999', 'gpt-5'],
    ['in-2099', 'Thu, 01 Jan 2099 00:00:00 GMT', 'gpt-5-mini'],
  ] as const;
  for (const [name, retryAfter, model] of cases) {
    await gw.admin.line({
      name,
      baseUrl: scenarioBase(mock, `status=429,retry-after=${encodeURIComponent(retryAfter)}`),
      models: [model],
    });
    await assert.rejects(ask(model), (e: unknown) => {
      const err = e as InstanceType<typeof OpenAI.APIError>;
      assert.equal(err.status, 429);
      assert.equal(err.headers?.get('retry-after'), '600');
      return true;
    });
    const held = await health(name);
    assert.equal(held.state, 'closed');
    assert.ok(held.waitMs > 0 && held.waitMs <= 600_000, `${name}: held for ${held.waitMs} ms`);
  }
});

test("disabling and enabling a line clears its upstream's 429 hold and its breaker: the next request reaches the upstream", async () => {
  await gw.admin.line({
    name: 'held',
    baseUrl: scenarioBase(mock, 'status=429,retry-after=300'),
    models: ['gpt-4o-mini'],
  });
  await assert.rejects(ask('gpt-4o-mini'), (e: unknown) => (e as InstanceType<typeof OpenAI.APIError>).status === 429);
  assert.ok((await health('held')).waitMs > 200_000, 'held for the retry-after');
  const before = mock.requests.length;
  await assert.rejects(ask('gpt-4o-mini'), (e: unknown) => (e as InstanceType<typeof OpenAI.APIError>).status === 429);
  assert.equal(mock.requests.length, before, 'held: nothing sent upstream');
  for (const enabled of [false, true])
    await gw.admin.client.call('updateLine', { params: { name: 'held' }, body: { enabled } });
  assert.deepEqual(await health('held'), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
  await assert.rejects(ask('gpt-4o-mini'));
  assert.equal(mock.requests.length, before + 1, 'enabled again: the request reached the upstream');
  // An open breaker is cleared the same way.
  await gw.admin.line({ name: 'failing', baseUrl: scenarioBase(mock, 'status=503'), models: ['gpt-5.4-nano'] });
  for (let i = 0; i < 3; i++) await assert.rejects(ask('gpt-5.4-nano'));
  assert.notEqual((await health('failing')).state, 'closed');
  for (const enabled of [false, true])
    await gw.admin.client.call('updateLine', { params: { name: 'failing' }, body: { enabled } });
  assert.deepEqual(await health('failing'), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
});

test('the ledger invariant holds after all of it', async () => {
  assert.equal((await gw.admin.doctor()).ok, true);
  assert.equal((await gw.admin.wallet()).heldMicro, 0);
});
