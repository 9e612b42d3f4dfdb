/**
 * Agent sessions through a running gateway, with the official OpenAI SDK and plain fetch against
 * the mock upstream: which session, tool and project a request is counted under, the session cap
 * that pauses one session while another of the same key goes on, the budget window that refuses
 * the key and names when it frees, the loop guards, parallel requests under a cap, and resuming.
 * test/e2e/sessions-*.test.ts do the same with the real coding CLIs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type OpenAI from 'openai';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;

before(async () => {
  gw = await startGateway();
  mock = await startMockUpstream();
  await gw.admin.topup(100);
  // Every answer reports 10,000 prompt tokens (8,000 read from the cache) and 100 output tokens.
  await gw.admin.line({
    name: 'mock',
    baseUrl: scenarioBase(mock, 'usage-in=10000,usage-cached=8000,usage-out=100'),
    models: ['gpt-4o'],
  });
});

after(async () => {
  await gw.close();
  await mock.close();
});

const ask = (client: OpenAI, session: string | null, content = 'hi', extra: Record<string, string> = {}) =>
  client.chat.completions.create(
    { model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content }] },
    { headers: { ...(session ? { 'x-tollgate-session': session } : {}), ...extra } },
  );

/** A Chat Completions body whose conversation ends with the tool round `result` answered. */
function toolRound(n: number, result: string) {
  return {
    model: 'gpt-4o',
    max_tokens: 50,
    tools: [{ type: 'function' as const, function: { name: 'read', parameters: { type: 'object', properties: {} } } }],
    messages: [
      { role: 'user' as const, content: 'read it' },
      ...Array.from({ length: n }, (_, i) => [
        {
          role: 'assistant' as const,
          content: null,
          tool_calls: [
            { id: `call_${i}`, type: 'function' as const, function: { name: 'read', arguments: '{"path":"a.txt"}' } },
          ],
        },
        { role: 'tool' as const, tool_call_id: `call_${i}`, content: i === n - 1 ? result : 'same' },
      ]).flat(),
    ],
  };
}

test('what caching saved, per key and per day, and each key over the range (GET /api/savings)', async () => {
  const a = gw.openai(await gw.admin.key('save-a'));
  const b = gw.openai(await gw.admin.key('save-b'));
  await ask(a, 'save-1');
  await ask(a, 'save-1');
  await ask(b, 'save-2');
  const rows = [...(await gw.admin.logs({ key: 'save-a' })), ...(await gw.admin.logs({ key: 'save-b' }))];
  const since = Math.min(...rows.map((r) => r.ts));
  const until = Math.max(...rows.map((r) => r.ts)) + 1;
  const call = (query: { tz?: number; key?: string } = {}) =>
    gw.admin.call('getSavings', { query: { since, until, ...query } });
  const all = await call({ tz: 60 });
  const day = (ts: number, tzMin: number) =>
    Math.floor((ts + tzMin * 60_000) / 86_400_000) * 86_400_000 - tzMin * 60_000;
  // Each answer: 10,000 prompt tokens, 8,000 of them cache reads, saving 8,000 × ($2.50 − $1.25)/M.
  const figures = (n: number, costMicro: number) => ({
    requests: n,
    promptTokens: 10_000 * n,
    cacheReadTokens: 8_000 * n,
    cacheHitRate: 0.8,
    costMicro,
    savedMicro: 10_000 * n,
  });
  const cost = (key: string) => rows.filter((r) => r.keyName === key).reduce((sum, r) => sum + r.costMicro, 0);
  assert.deepEqual(all.keys, [
    { key: 'save-a', ...figures(2, cost('save-a')) },
    { key: 'save-b', ...figures(1, cost('save-b')) },
  ]);
  assert.deepEqual(all.total, figures(3, cost('save-a') + cost('save-b')));
  // The days as the log rows fall (with tz=60), oldest first, then by key.
  const expected = new Map<string, [number, string, number]>();
  for (const r of rows) {
    const k = `${day(r.ts, 60)} ${r.keyName}`;
    const had = expected.get(k);
    expected.set(k, [day(r.ts, 60), r.keyName!, (had?.[2] ?? 0) + 10_000]);
  }
  assert.deepEqual(
    all.days.map((d) => [d.start, d.key, d.savedMicro]),
    [...expected.values()].sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1])),
  );
  assert.equal((await call({ tz: -600 })).days[0]!.start, day(since, -600), 'days start where the caller says');
  const one = await call({ key: 'save-b' });
  assert.deepEqual([one.keys.map((k) => k.key), one.total.savedMicro], [['save-b'], 10_000]);
  const wide = await refusal(gw.admin.call('getSavings', { query: { since: 0, until: 400 * 86_400_000 } }));
  assert.deepEqual([wide.status, wide.code], [400, 'invalid_request']);
});

test('a request is counted under its session, tool and project, with its cache savings', async () => {
  const secret = await gw.admin.key('attrib', { project: 'tollgate-repo' });
  const client = gw.openai(secret);
  await ask(client, 'explicit-1');
  await ask(client, 'explicit-1', 'hi', { 'x-tollgate-project': 'other' });
  await ask(client, null);
  await ask(client, null);
  const rows = await gw.admin.logs({ key: 'attrib' });
  assert.deepEqual(
    rows.map((r) => [r.session?.startsWith('tg-') ? 'tg-' : r.session, r.tool, r.project]),
    [
      ['tg-', 'openai-sdk', 'tollgate-repo'],
      ['tg-', 'openai-sdk', 'tollgate-repo'],
      ['explicit-1', 'openai-sdk', 'other'],
      ['explicit-1', 'openai-sdk', 'tollgate-repo'],
    ],
  );
  assert.equal(rows[0]!.session, rows[1]!.session, 'without an id, one session until 30 idle minutes');
  // gpt-4o: input $2.50/M, cache read $1.25/M: 8,000 cached tokens saved 8,000 × $1.25/M.
  assert.equal(rows[0]!.savedMicro, 10_000);
  assert.equal(rows[0]!.cacheHitRate, 0.8);
  const { sessions } = await gw.admin.call('listSessions', { query: { key: 'attrib' } });
  assert.equal(sessions.length, 2);
  const s = sessions.find((x) => x.id === 'explicit-1')!;
  assert.equal(s.requests, 2);
  assert.equal(s.costMicro, rows[2]!.costMicro + rows[3]!.costMicro);
  assert.equal(s.savedMicro, 20_000);
  assert.equal(s.state, 'active');
  const curl = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
    body: JSON.stringify({ model: 'gpt-4o', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] }),
  });
  assert.equal(curl.status, 200);
  assert.equal((await gw.admin.logs({ key: 'attrib', tool: 'curl' })).length, 1);
});

test('a session at its cap is paused and refused locally; a new session of the key goes on; resume raises the cap', async () => {
  // Each request costs 16,000 µ$ (2,000 uncached and 8,000 cached prompt tokens, 100 output): the cap passes on the second.
  const secret = await gw.admin.key('capped', { sessionCapMicro: 30_000 });
  const client = gw.openai(secret);
  await ask(client, 'cap-a');
  await ask(client, 'cap-a');
  const upstreamBefore = mock.requests.length;
  const err = await ask(client, 'cap-a').then(
    () => assert.fail('the paused session was served'),
    (e: unknown) => e as { status: number; error: { message: string; code: string } },
  );
  assert.equal(err.status, 402);
  assert.match(err.error.message, /session cap of \$0\.03 is reached \(\$0\.032 spent\)/);
  assert.match(err.error.message, /tollgate sessions resume cap-a/);
  assert.equal(mock.requests.length, upstreamBefore, 'nothing was sent upstream');
  await ask(client, 'cap-b');
  const [paused] = (await gw.admin.call('listSessions', { query: { key: 'capped' } })).sessions.filter(
    (x) => x.id === 'cap-a',
  );
  assert.deepEqual([paused?.state, paused?.pause?.guard], ['paused', 'session-cap']);
  const { session } = await gw.admin.call('resumeSession', { params: { id: 'cap-a' }, body: { addMicro: 100_000 } });
  assert.equal(session.capMicro, 130_000);
  await ask(client, 'cap-a');
});

test('parallel requests of one session overspend its cap by at most one reservation', async () => {
  const secret = await gw.admin.key('parallel', { sessionCapMicro: 100_000 });
  const client = gw.openai(secret);
  // 2,000 output tokens at $10/M: each request reserves a little over 20,000 µ$ and costs 16,000.
  const big = (): Promise<unknown> =>
    client.chat.completions.create(
      { model: 'gpt-4o', max_tokens: 2000, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-tollgate-session': 'par' } },
    );
  const first = await Promise.allSettled(Array.from({ length: 20 }, big));
  const refused = first.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  assert.ok(refused.length > 0 && refused.length < 20, `${refused.length} refused`);
  for (const r of refused)
    assert.match((r.reason as Error).message, /held for its requests in flight|session cap of \$0\.10 is reached/);
  for (let i = 0; i < 10; i++)
    if (
      (await big().then(
        () => true,
        () => false,
      )) === false
    )
      break;
  const spent = (await gw.admin.logs({ session: 'par' })).reduce((sum, r) => sum + r.costMicro, 0);
  assert.ok(spent >= 100_000 && spent <= 100_000 + 20_300, `spent ${spent}`);
  const { session } = await gw.admin.call('getSession', { params: { id: 'par' } });
  assert.equal(session.state, 'paused');
});

test('a budget window refuses the key and names when it frees room', async () => {
  const secret = await gw.admin.key('budgeted', { budgets: { '1d': 30_000 } });
  const client = gw.openai(secret);
  await ask(client, 'bud-1');
  await ask(client, 'bud-2');
  const err = await refusalOf(ask(client, 'bud-3'));
  assert.equal(err.status, 402);
  assert.match(err.error.message, /1d budget of \$0\.03/);
  assert.match(err.error.message, /frees room at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 2\d h/);
  const listed = (await gw.admin.call('listKeys')).keys.find((k) => k.name === 'budgeted');
  assert.deepEqual(listed?.budgets, { '1d': 30_000 });
});

test('the loop guard pauses a session whose tool round repeats K times, and records the call', async () => {
  const secret = await gw.admin.key('looping', { loopLimit: 3 });
  const client = gw.openai(secret);
  const headers = { 'x-tollgate-session': 'loop-1' };
  await client.chat.completions.create(toolRound(1, 'same'), { headers });
  await client.chat.completions.create(toolRound(2, 'same'), { headers });
  const err = await refusalOf(client.chat.completions.create(toolRound(3, 'same'), { headers }));
  assert.equal(err.status, 400);
  assert.match(
    err.error.message,
    /the same tool call, read \{"path":"a.txt"\}, came back with the same result 3 times/,
  );
  const { session } = await gw.admin.call('getSession', { params: { id: 'loop-1' } });
  assert.equal(session.pause?.call, 'read {"path":"a.txt"}');
  // An honest session: the same call, a different result each time, never trips it.
  for (let n = 1; n <= 6; n++)
    await client.chat.completions.create(toolRound(n, `line ${n}`), { headers: { 'x-tollgate-session': 'honest' } });
});

test('the same body more than ten times within a minute pauses the session', async () => {
  const secret = await gw.admin.key('repeater');
  const client = gw.openai(secret);
  for (let i = 0; i < 10; i++) await ask(client, 'rep', 'again');
  const err = await refusalOf(ask(client, 'rep', 'again'));
  assert.match(err.error.message, /the same request was sent 11 times within 60 s/);
});

test('SDK traffic that names no session may repeat a body; a loop limit of 0 turns the body rule off', async () => {
  // A script or a benchmark sends one body many times on purpose: its idle-gap session is not an agent's.
  const script = gw.openai(await gw.admin.key('script'));
  for (let i = 0; i < 15; i++) await ask(script, null, 'same');
  const quiet = gw.openai(await gw.admin.key('quiet', { loopLimit: 0 }));
  for (let i = 0; i < 15; i++) await ask(quiet, 'named-quiet', 'same');
  const rows = await gw.admin.logs({ key: 'quiet' });
  assert.equal(rows.filter((r) => r.status === 200).length, 15);
});

test('an unknown session cannot be resumed; a key without a cap cannot be raised', async () => {
  assert.equal((await refusal(gw.admin.call('resumeSession', { params: { id: 'nope' }, body: {} }))).status, 404);
  const e = await refusal(gw.admin.call('resumeSession', { params: { id: 'rep' }, body: { addMicro: 5 } }));
  assert.equal(e.code, 'no_session_cap');
});

function refusalOf(p: Promise<unknown>): Promise<{ status: number; error: { message: string; code: string } }> {
  return p.then(
    () => assert.fail('the request was served'),
    (e: unknown) => e as { status: number; error: { message: string; code: string } },
  );
}
