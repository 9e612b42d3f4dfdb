/**
 * The admin routes of the tools a user connects and of their agent sessions, through the typed
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
});
