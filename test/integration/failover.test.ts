/**
 * Lines that never strand a user: with two lines for one model and the first failing in each way,
 * every request that had not started reaching the client succeeds through the second and is
 * billed once. Also the breaker, upstream 429 holds, key limits and aliases.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let client: OpenAI;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function ask(model: string, stream: boolean, c: OpenAI = client): Promise<string> {
  if (!stream)
    return (
      (await c.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] })).choices[0]!.message
        .content ?? ''
    );
  let text = '';
  for await (const chunk of await c.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hello' }],
    stream: true,
  }))
    text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

type Row = Awaited<ReturnType<TestGateway['admin']['logs']>>[number];

/**
 * The newest ledger row for a model (or a key). Each test uses models no other test uses, so it reads
 * its own rows. A row is committed before the answer ends, so it is there as soon as the request returns.
 */
async function lastRow(query: { model: string } | { key: string }): Promise<Row> {
  const [row] = await gw.admin.logs({ ...query, limit: 1 });
  assert.ok(row, `a ledger row for ${JSON.stringify(query)}`);
  return row;
}

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(10);
  // Serves the key-limit and alias tests, whichever of them runs.
  await gw.admin.line({ name: 'plain', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
  client = gw.openai(await gw.admin.key('k'));
});

after(async () => {
  await gw.close();
  await mock.close();
});

describe('failover before the first byte', () => {
  const kinds: [string, () => Promise<string>, Record<string, unknown>][] = [
    ['answers 500', async () => scenarioBase(mock, 'status=500'), {}],
    ['answers 429', async () => scenarioBase(mock, 'status=429,retry-after=1'), {}],
    ['refuses the connection', async () => `http://127.0.0.1:${await freePort()}/v1`, {}],
    [
      'stalls before the first byte',
      async () => scenarioBase(mock, 'delay=10000'),
      { timeouts: { firstByteMs: 300, nonStreamingFirstByteMs: 300 } },
    ],
    ['drops before the first event', async () => scenarioBase(mock, 'drop-after=0'), {}],
  ];
  // A pair of lines and a model per case and mode: one case's breaker or 429 hold cannot touch another.
  const models = [
    ['gpt-4o', 'gpt-5.4-mini'],
    ['gpt-4.1', 'gpt-5.4-nano'],
    ['gpt-4.1-mini', 'o3'],
    ['gpt-5', 'grok-4.7'],
    ['gpt-5-mini', 'grok-4.3'],
  ] as const;
  kinds.forEach(([name, base, extra], i) => {
    for (const stream of [false, true]) {
      const model = models[i]![stream ? 1 : 0];
      const [bad, good] = [`bad-${i}${stream ? '-stream' : ''}`, `good-${i}${stream ? '-stream' : ''}`];
      test(`the first line ${name}: the second serves${stream ? ' a stream' : ''}, billed once`, async () => {
        await gw.admin.line({ name: bad, baseUrl: await base(), models: [model], priority: 10, ...extra });
        await gw.admin.line({ name: good, baseUrl: `${mock.url}/v1`, models: [model], priority: 0 });
        const spentBefore = (await gw.admin.wallet()).spentMicro;
        assert.equal(await ask(model, stream), 'mock reply to: hello');
        const row = await lastRow({ model });
        assert.equal(row.status, 200);
        assert.equal(row.line, good);
        assert.equal(row.stream, stream);
        assert.equal(row.attempts, 2);
        assert.match(row.notes ?? '', new RegExp(`line "${bad}" failed`));
        assert.ok(row.costMicro > 0, 'billed');
        const wallet = await gw.admin.wallet();
        assert.equal(wallet.spentMicro - spentBefore, row.costMicro, 'billed exactly once');
        assert.equal(wallet.heldMicro, 0);
      });
    }
  });

  test('a stream whose headers came but whose first event does not is failed over after the first-byte timeout', async () => {
    await gw.admin.line({
      name: 'mute',
      baseUrl: scenarioBase(mock, 'first-chunk-delay=60000'),
      models: ['o3-pro'],
      priority: 10,
      timeouts: { firstByteMs: 300 },
    });
    await gw.admin.line({ name: 'speaks', baseUrl: `${mock.url}/v1`, models: ['o3-pro'] });
    assert.equal(await ask('o3-pro', true), 'mock reply to: hello');
    const row = await lastRow({ model: 'o3-pro' });
    assert.equal(row.line, 'speaks');
    assert.equal(row.attempts, 2);
    assert.match(row.notes ?? '', /line "mute" failed \(504 upstream_timeout\)/);
  });

  test('a stream that already started is not retried: it ends with an error event and is billed for what came', async () => {
    await gw.admin.line({
      name: 'drops-late',
      baseUrl: scenarioBase(mock, 'drop-after=4,words=30'),
      models: ['gpt-5-nano'],
      priority: 10,
    });
    await gw.admin.line({ name: 'fine', baseUrl: `${mock.url}/v1`, models: ['gpt-5-nano'] });
    await assert.rejects(ask('gpt-5-nano', true), /Upstream error/);
    // The error event reaches the client before the row is written: wait for the row, not for time.
    await waitFor(async () => (await gw.admin.logs({ model: 'gpt-5-nano' })).length > 0, 'the ledger row');
    const row = await lastRow({ model: 'gpt-5-nano' });
    assert.equal(row.line, 'drops-late');
    assert.equal(row.attempts, 1);
    assert.equal(row.status, 502);
    assert.ok(row.costMicro > 0, 'billed');
  });

  test('when every line fails, the last failure is the answer and the log names them all', async () => {
    await gw.admin.line({
      name: 'down-1',
      baseUrl: scenarioBase(mock, 'status=500'),
      models: ['gpt-5.1'],
      priority: 1,
    });
    await gw.admin.line({ name: 'down-2', baseUrl: scenarioBase(mock, 'status=503'), models: ['gpt-5.1'] });
    await assert.rejects(
      ask('gpt-5.1', false),
      (e: unknown) => (e as InstanceType<typeof OpenAI.APIError>).status === 503,
    );
    const row = await lastRow({ model: 'gpt-5.1' });
    assert.equal(row.attempts, 2);
    assert.equal(row.costMicro, 0);
    assert.match(row.notes ?? '', /down-1.*down-2/);
  });
});

describe('circuit breaker', () => {
  test('opens after repeated failures, probes after the cool-down, closes on success', async () => {
    // Long enough that the breaker is still open when checked below, short enough to wait out.
    gw.running.gateway.health.baseCooldownMs = 1500;
    const port = await freePort();
    await gw.admin.line({ name: 'flaky', baseUrl: `http://127.0.0.1:${port}/v1`, models: ['gpt-5.2'], priority: 10 });
    await gw.admin.line({ name: 'steady', baseUrl: `${mock.url}/v1`, models: ['gpt-5.2'] });
    for (let i = 0; i < 3; i++) {
      await ask('gpt-5.2', false);
      assert.equal((await lastRow({ model: 'gpt-5.2' })).attempts, 2);
    }
    const state = async (): Promise<string> =>
      (await gw.admin.client.call('listLines')).lines.find((l) => l.name === 'flaky')!.health.state;
    assert.equal(await state(), 'open');
    await ask('gpt-5.2', false);
    const skipped = await lastRow({ model: 'gpt-5.2' });
    assert.equal(skipped.attempts, 1, 'an open line is not tried');
    assert.equal(skipped.line, 'steady');
    // The flaky upstream comes back; after the cool-down one probe goes to it and closes the breaker.
    const revived = await startMockUpstream({ port });
    try {
      await waitFor(async () => (await state()) === 'half-open', 'the cool-down to end');
      await ask('gpt-5.2', false);
      const probe = await lastRow({ model: 'gpt-5.2' });
      assert.equal(probe.line, 'flaky');
      assert.equal(probe.attempts, 1);
      assert.equal(await state(), 'closed');
    } finally {
      await revived.close();
    }
  });

  test('an upstream 429 puts its line on hold for its retry-after, without opening the breaker', async () => {
    // A hold far longer than the test, so the second request surely falls inside it.
    await gw.admin.line({
      name: 'busy',
      baseUrl: scenarioBase(mock, 'status=429,retry-after=600'),
      models: ['gpt-5.4'],
      priority: 10,
    });
    await gw.admin.line({ name: 'calm', baseUrl: `${mock.url}/v1`, models: ['gpt-5.4'] });
    await ask('gpt-5.4', false);
    assert.equal((await lastRow({ model: 'gpt-5.4' })).attempts, 2);
    const busy = (await gw.admin.client.call('listLines')).lines.find((l) => l.name === 'busy')!.health;
    assert.equal(busy.state, 'closed', 'a 429 does not open the breaker');
    assert.ok(busy.waitMs > 0, 'the line is on hold');
    const before = mock.requests.length;
    await ask('gpt-5.4', false);
    const row = await lastRow({ model: 'gpt-5.4' });
    assert.equal(row.attempts, 1);
    assert.equal(row.line, 'calm');
    assert.equal(mock.requests.length, before + 1, 'the busy line was not asked again');
  });
});

describe('key limits', () => {
  test('requests per minute', async () => {
    const c = gw.openai(await gw.admin.key('slowpoke', { rpm: 2 }));
    await ask('gpt-4o-mini', false, c);
    await ask('gpt-4o-mini', false, c);
    await assert.rejects(ask('gpt-4o-mini', false, c), (e: unknown) => {
      const err = e as InstanceType<typeof OpenAI.APIError>;
      assert.equal(err.status, 429);
      assert.match(err.message, /allows 2 requests per minute/);
      assert.ok(Number(err.headers?.get('retry-after')) >= 1, `retry-after ${err.headers?.get('retry-after')}`);
      return true;
    });
    assert.equal((await lastRow({ key: 'slowpoke' })).errorCode, 'key_rate_limited');
  });

  test('requests in flight', async () => {
    await gw.admin.line({ name: 'slow', baseUrl: scenarioBase(mock, 'delay=300'), models: ['gpt-5.5'] });
    const c = gw.openai(await gw.admin.key('single', { maxConcurrent: 1 }));
    const first = ask('gpt-5.5', false, c);
    // The second starts once the first holds the slot, that is once the first reached the upstream.
    await waitFor(
      () => mock.requests.some((r) => r.body?.model === 'gpt-5.5'),
      'the first request to reach the upstream',
    );
    await assert.rejects(
      ask('gpt-5.5', false, c),
      (e: unknown) => (e as InstanceType<typeof OpenAI.APIError>).status === 429,
    );
    assert.equal(await first, 'mock reply to: hello');
    // The slot is given back when the first request ends.
    assert.equal(await ask('gpt-5.5', false, c), 'mock reply to: hello');
  });
});

describe('aliases', () => {
  test('a hard-coded model id is steered to a catalogue model; the log shows both', async () => {
    await gw.admin.client.call('addAlias', { body: { pattern: 'claude-*-haiku-*', model: 'gpt-4o-mini' } });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: client.apiKey!, maxRetries: 0 });
    const m = await anthropic.messages.create({
      model: 'claude-3-5-haiku-20241022',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi there' }],
    });
    assert.equal(m.content[0]!.type === 'text' && m.content[0]!.text, 'mock reply to: hi there');
    assert.equal(m.model, 'claude-3-5-haiku-20241022');
    const row = await lastRow({ model: 'claude-3-5-haiku-20241022' });
    assert.equal(row.model, 'claude-3-5-haiku-20241022');
    assert.equal(row.servedModel, 'gpt-4o-mini');
    assert.equal(mock.requests.at(-1)!.body.model, 'gpt-4o-mini');
    const { aliases } = await gw.admin.client.call('listAliases');
    assert.deepEqual(aliases, [{ pattern: 'claude-*-haiku-*', model: 'gpt-4o-mini' }]);
    await gw.admin.client.call('removeAlias', { params: { pattern: 'claude-*-haiku-*' } });
    await assert.rejects(
      anthropic.messages.create({
        model: 'claude-3-5-haiku-20241022',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (e: unknown) => (e as { status: number }).status === 404,
    );
  });
});

test('the ledger invariant holds after all of it', async () => {
  const report = await gw.admin.doctor();
  assert.equal(report.ok, true, JSON.stringify(report.checks));
  assert.equal((await gw.admin.wallet()).heldMicro, 0);
});
