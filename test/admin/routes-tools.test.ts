/**
 * The admin routes of the tools a user connects, of their agent sessions, of the stats grouped by
 * them and of what the Keys page and the Playground read of keys, through the typed
 * client against a real in-process gateway (routes.test.ts has the rest, and checks that every
 * route of the table is called in one of the two files).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { refusal, type TestGateway } from '../helpers/gateway.js';
import { servedGateway, type ServedGateway } from '../helpers/served-gateway.js';

let gw: TestGateway;
let call: ServedGateway['call'];
let served: ServedGateway;

before(async () => ({ gw, call } = served = await servedGateway()));
after(() => served.close());

describe('connect and session routes through the typed client', () => {
  test("connect: connectStatus, connectTool, listSnippets, shellEnv, disconnectTool (in the gateway's temporary HOME)", async () => {
    const before = (await call('connectStatus')).tools.find((t) => t.tool === 'codex');
    assert.deepEqual([before?.connected, before?.suggested], [false, { model: 'gpt-4o', smallModel: null }]);
    const preview = await call('connectTool', { params: { tool: 'codex' }, body: { dryRun: true } });
    assert.deepEqual(
      [preview.dryRun, preview.key, preview.model],
      [true, { name: 'codex', action: 'create', last4: null }, 'gpt-4o'],
    );
    const done = await call('connectTool', { params: { tool: 'codex' }, body: { expect: preview.expect } });
    assert.deepEqual(
      [done.dryRun, done.key.action, done.files.map((f) => f.path)],
      [false, 'create', [`${gw.home}/.codex/config.toml`]],
    );
    assert.equal((await call('connectStatus')).tools.find((t) => t.tool === 'codex')?.matches, true);
    assert.equal(
      (await call('listSnippets', { query: { model: 'gpt-4o' } })).snippets.find((x) => x.id === 'curl')?.baseUrl,
      `${gw.url}/v1`,
    );
    const env = await call('shellEnv', { params: { target: 'codex' }, body: {} });
    assert.deepEqual([env.keySource, env.keyName], ['connected', 'codex']);
    const undone = await call('disconnectTool', { params: { tool: 'codex' }, query: { keepKey: false } });
    assert.deepEqual([undone.files.map((f) => f.action), undone.key.action], [['removed'], 'deleted']);
  });

  test('sessions: listSessions, getSession, resumeSession, getSavings (test/integration/sessions.test.ts has the guards and the figures)', async () => {
    const secret = (await call('createKey', { body: { name: 'route-sessions', sessionCapMicro: 1 } })).secret;
    const headers = { 'x-tollgate-session': 'route-s' };
    await gw
      .openai(secret)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { headers });
    const [s] = (await call('listSessions', { query: { key: 'route-sessions' } })).sessions;
    assert.deepEqual([s?.id, s?.tool, s?.requests, s?.state], ['route-s', 'openai-sdk', 1, 'paused']);
    const one = await call('getSession', { params: { id: 'route-s' } });
    assert.equal(one.requests[0]?.cumulativeMicro, s?.costMicro);
    const resumed = await call('resumeSession', { params: { id: 'route-s' }, body: { addMicro: 1_000_000 } });
    assert.deepEqual([resumed.session.state, resumed.session.capMicro], ['active', 1_000_001]);
    assert.equal((await refusal(call('getSession', { params: { id: 'nope' } }))).status, 404);
    const saved = await call('getSavings', {
      query: { since: s!.firstTs, until: s!.lastTs + 1, key: 'route-sessions' },
    });
    assert.deepEqual(
      [saved.keys.map((k) => k.key), saved.total.requests, saved.total.costMicro],
      [['route-sessions'], 1, s!.costMicro],
    );
  });

  test('keys: getKeyUsage, playgroundKey (test/operations/keys.test.ts has the days and the reuse)', async () => {
    const secret = (await call('createKey', { body: { name: 'route-usage' } })).secret;
    await gw.openai(secret).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const [row] = await gw.admin.logs({ key: 'route-usage' });
    const u = (await call('getKeyUsage', { query: { days: 7 } })).keys.find((k) => k.name === 'route-usage');
    assert.deepEqual(
      [u?.lastUsedAt, u?.requests, u?.costMicro, u?.dailyMicro.length, u?.dailyMicro.at(-1)],
      [row!.ts, 1, row!.costMicro, 7, row!.costMicro],
    );
    const made = await call('playgroundKey');
    const again = await call('playgroundKey');
    assert.deepEqual([made.key.madeBy, again.key.id, again.secret === made.secret], ['playground', made.key.id, false]);
  });

  test('getStatsTop: the largest groups of a range by spend, with its totals; stats group by session, tool and project', async () => {
    const secret = (await call('createKey', { body: { name: 'route-top' } })).secret;
    const since = Date.now();
    for (const [session, project] of [
      ['top-a', 'alpha'],
      ['top-a', 'alpha'],
      ['top-b', 'beta'],
    ])
      await gw
        .openai(secret)
        .chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${session}` }] },
          { headers: { 'x-tollgate-session': session!, 'x-tollgate-project': project! } },
        );
    const until = Date.now() + 60_000;
    const mine = (await gw.admin.logs({ key: 'route-top' })).reduce((n, e) => n + e.costMicro, 0);
    const bySession = await call('getStatsTop', { query: { since, until, by: 'session', limit: 1 } });
    assert.equal(bySession.rows.length, 1);
    assert.deepEqual([bySession.rows[0]?.group, bySession.rows[0]?.requests], ['top-a', 2]);
    assert.equal(bySession.groups, 2);
    assert.equal(bySession.total.costMicro, mine);
    const byTool = await call('getStatsTop', { query: { since, until, by: 'tool' } });
    assert.deepEqual(
      byTool.rows.map((r) => [r.group, r.requests]),
      [['openai-sdk', 3]],
    );
    const { rows } = await call('getStats', { query: { since, until, bucket: 'hour', by: 'project' } });
    assert.deepEqual(rows.map((r) => r.group).sort(), ['alpha', 'beta']);
    assert.equal(
      (await refusal(call('getStatsTop', { query: { since: until, until: since, by: 'key' } }))).status,
      400,
    );
    const tooMany = await refusal(call('getStatsTop', { query: { since, until, by: 'key', limit: 51 } }));
    assert.equal(tooMany.status, 400);
  });
});
