/**
 * Every route of the admin table, called through the typed client against a real in-process
 * gateway (so each reply is also checked against its schema), then the refusals: bad query, bad
 * body, unknown route. The last test fails when a route of the table is not called in this file or
 * in routes-tools.test.ts (connect and sessions).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ADMIN_ROUTES } from '../../gateway/contract/admin/index.js';
import { VERSION } from '../../gateway/serve.js';
import { refusal, type TestGateway } from '../helpers/gateway.js';
import { servedGateway, type ServedGateway } from '../helpers/served-gateway.js';
import { MOCK_MODELS, scenarioBase, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;
let call: ServedGateway['call'];
let served: ServedGateway;

before(async () => ({ gw, mock, call } = served = await servedGateway()));
after(() => served.close());

describe('each route through the typed client', () => {
  test('getStatus', async () => {
    assert.deepEqual(await call('getStatus'), {
      version: VERSION,
      dataDir: gw.dataDir,
      url: gw.url,
      paused: false,
      unauthenticatedRequests: 0,
      tokenCounts: { answered: 0, refused: 0 },
    });
  });

  test('pauseGateway and resumeGateway answer the status (test/integration/pause.test.ts: what pausing does)', async () => {
    assert.deepEqual(await call('pauseGateway'), {
      version: VERSION,
      dataDir: gw.dataDir,
      url: gw.url,
      paused: true,
      unauthenticatedRequests: 0,
      tokenCounts: { answered: 0, refused: 0 },
    });
    assert.equal((await call('getStatus')).paused, true);
    assert.deepEqual(await call('resumeGateway'), {
      version: VERSION,
      dataDir: gw.dataDir,
      url: gw.url,
      paused: false,
      unauthenticatedRequests: 0,
      tokenCounts: { answered: 0, refused: 0 },
    });
  });

  test('console sessions: createLoginCode, and logout (a no-op for the token)', async () => {
    const code = await call('createLoginCode');
    assert.equal(code.url, `${gw.url}/login?code=${code.code}`);
    assert.ok(Date.parse(code.expiresAt) > Date.now(), code.expiresAt);
    assert.deepEqual(await call('logout'), { ok: true });
    assert.equal((await call('getWallet')).balanceMicro, 10_000_000, 'the token still works after a logout');
  });

  test('updateKey changes group, quota, expiry and limits, and only what it is given', async () => {
    await call('createKey', { body: { name: 'editable', rpm: 5 } });
    await gw.admin.group('editors', '1.5');
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const { key } = await call('updateKey', {
      params: { name: 'editable' },
      body: { group: 'editors', quotaMicro: 2_000_000, expiresAt, maxConcurrent: 3 },
    });
    assert.deepEqual(
      [key.group, key.quotaMicro, key.expiresAt, key.rpm, key.maxConcurrent],
      ['editors', 2_000_000, expiresAt, 5, 3],
    );
    const cleared = await call('updateKey', {
      params: { name: 'editable' },
      body: { quotaMicro: null, expiresAt: null, rpm: null },
    });
    assert.deepEqual(
      [cleared.key.group, cleared.key.quotaMicro, cleared.key.expiresAt, cleared.key.rpm, cleared.key.maxConcurrent],
      ['editors', null, null, null, 3],
    );
    const unknown = await refusal(call('updateKey', { params: { name: 'editable' }, body: { group: 'nope' } }));
    assert.deepEqual([unknown.status, unknown.code], [400, 'unknown_group']);
    const past = await refusal(
      call('updateKey', { params: { name: 'editable' }, body: { expiresAt: '2001-01-01T00:00:00Z' } }),
    );
    assert.deepEqual([past.status, past.code], [400, 'expired']);
    const missing = await refusal(call('updateKey', { params: { name: 'nobody' }, body: {} }));
    assert.deepEqual([missing.status, missing.code], [404, 'unknown_key']);
    const renamed = await refusal(call('updateKey', { params: { name: 'editable' }, body: { name: 'x' } as never }));
    assert.equal(renamed.status, 400);
  });

  test('listWalletTransactions: top-ups with notes, newest first, paged', async () => {
    await call('topUp', { body: { amountMicro: 1_500_000, note: 'for the routes test' } });
    const { transactions } = await call('listWalletTransactions', { query: { limit: 1 } });
    assert.deepEqual(
      transactions.map((t) => [t.kind, t.amountMicro, t.note]),
      [['topup', 1_500_000, 'for the routes test']],
    );
    const older = await call('listWalletTransactions', { query: { before: transactions[0]!.id } });
    assert.deepEqual(
      older.transactions.map((t) => t.amountMicro),
      [10_000_000],
    );
  });

  test('getStats: requests, errors, cost and tokens per bucket and group; bad ranges refused', async () => {
    const secret = await gw.admin.key('stats-key');
    await gw
      .openai(secret)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count me' }] });
    const now = Date.now();
    const { rows } = await call('getStats', {
      query: { since: now - 86_400_000, until: now + 60_000, bucket: 'hour', by: 'key' },
    });
    const mine = rows.filter((r) => r.group === 'stats-key');
    assert.equal(
      mine.reduce((n, r) => n + r.requests, 0),
      1,
    );
    const [logged] = await gw.admin.logs({ key: 'stats-key' });
    assert.equal(mine[0]!.costMicro, logged!.costMicro);
    assert.equal(mine[0]!.start % 3_600_000, 0);
    const backwards = await refusal(
      call('getStats', { query: { since: now, until: now - 1, bucket: 'day', by: 'model' } }),
    );
    assert.deepEqual([backwards.status, backwards.code], [400, 'invalid_request']);
    const tooLong = await refusal(call('getStats', { query: { since: 0, until: now, bucket: 'hour', by: 'model' } }));
    assert.equal(tooLong.status, 400);
    const badBucket = await refusal(
      call('getStats', { query: { since: 0, until: now, bucket: 'week', by: 'model' } as never }),
    );
    assert.equal(badBucket.status, 400);
  });

  test('keys: create, list, disable, enable, delete', async () => {
    const created = await call('createKey', {
      body: { name: 'route-key', quotaMicro: 5_000_000, rpm: 30, maxConcurrent: 2 },
    });
    assert.match(created.secret, /^sk-[A-Za-z0-9]{48}$/);
    assert.equal(created.key.last4, created.secret.slice(-4));
    assert.deepEqual(
      {
        state: created.key.state,
        group: created.key.group,
        quotaMicro: created.key.quotaMicro,
        usedMicro: created.key.usedMicro,
        rpm: created.key.rpm,
        maxConcurrent: created.key.maxConcurrent,
      },
      { state: 'enabled', group: 'default', quotaMicro: 5_000_000, usedMicro: 0, rpm: 30, maxConcurrent: 2 },
    );
    assert.deepEqual(
      (await call('listKeys')).keys.find((k) => k.name === 'route-key'),
      created.key,
    );
    assert.equal((await call('disableKey', { params: { name: 'route-key' } })).key.state, 'disabled');
    assert.equal((await call('enableKey', { params: { name: 'route-key' } })).key.state, 'enabled');
    assert.equal((await call('deleteKey', { params: { name: 'route-key' } })).key.state, 'deleted');
    assert.ok(!(await call('listKeys')).keys.some((k) => k.name === 'route-key'), 'a deleted key is not listed');
    const gone = await refusal(call('deleteKey', { params: { name: 'route-key' } }));
    assert.deepEqual([gone.status, gone.code], [404, 'unknown_key']);
    // The name goes into the path encoded, and comes back whole.
    const odd = await refusal(call('disableKey', { params: { name: 'a/b?c' } }));
    assert.equal(odd.message, 'There is no key named "a/b?c".');
  });

  test('wallet: getWallet, topUp', async () => {
    const before = await call('getWallet');
    assert.equal(before.balanceMicro, before.topupsMicro - before.spentMicro);
    const after = await call('topUp', { body: { amountMicro: 2_500_000, note: 'routes test' } });
    assert.deepEqual(after, {
      ...before,
      balanceMicro: before.balanceMicro + 2_500_000,
      topupsMicro: before.topupsMicro + 2_500_000,
    });
    assert.deepEqual(await call('getWallet'), after);
  });

  test('adjustWallet: signed, with a note, refused at zero or below a zero balance', async () => {
    const before = await call('getWallet');
    const after = await call('adjustWallet', { body: { amountMicro: -700_000, note: 'routes test correction' } });
    assert.deepEqual(after, {
      ...before,
      balanceMicro: before.balanceMicro - 700_000,
      adjustmentsMicro: before.adjustmentsMicro - 700_000,
    });
    const { transactions } = await call('listWalletTransactions', { query: { limit: 1 } });
    assert.deepEqual(
      transactions.map((t) => [t.kind, t.amountMicro, t.note]),
      [['adjustment', -700_000, 'routes test correction']],
    );
    assert.equal(
      (await refusal(call('adjustWallet', { body: { amountMicro: 0, note: 'x' } }))).code,
      'invalid_request',
    );
    assert.equal(
      (await refusal(call('adjustWallet', { body: { amountMicro: -after.balanceMicro - 1, note: 'x' } }))).code,
      'invalid_request',
    );
    assert.equal((await refusal(call('adjustWallet', { body: { amountMicro: 5, note: '' } }))).code, 'invalid_request');
    await call('adjustWallet', { body: { amountMicro: 700_000, note: 'routes test: undone' } });
  });

  test('settings: getSettings, updateSettings, getRequestBody (test/operations/settings.test.ts has the rest)', async () => {
    const s = await call('getSettings');
    assert.equal(s.storeBodies, false);
    const on = await call('updateSettings', { body: { storeBodies: true } });
    assert.equal(on.storeBodies, true);
    const secret = await gw.admin.key('bodies-key');
    const res = await gw
      .openai(secret)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'keep me' }] })
      .withResponse();
    const requestId = res.response.headers.get('x-request-id')!;
    assert.match((await call('getRequestBody', { params: { requestId } })).body, /keep me/);
    await call('updateSettings', { body: { storeBodies: false } });
    assert.equal((await refusal(call('getRequestBody', { params: { requestId } }))).status, 404);
  });

  test('listPresets', async () => {
    const { presets } = await call('listPresets');
    const openai = presets.find((p) => p.id === 'openai');
    assert.deepEqual([openai?.protocol, openai?.auth, openai?.apiKeyEnv], ['openai-chat', 'bearer', 'OPENAI_API_KEY']);
  });

  test('lines: add, list, update, test, models, remove', async () => {
    const added = await call('addLine', {
      body: {
        name: 'route-line',
        protocol: 'openai-chat',
        baseUrl: `${mock.url}/v1/`,
        models: ['gpt-4o'],
        modelMap: { 'gpt-4o': 'mock-small' },
        timeouts: { firstByteMs: 30_000 },
      },
    });
    assert.equal(added.line.baseUrl, `${mock.url}/v1`);
    assert.deepEqual(added.line.health, { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
    assert.deepEqual(
      (await call('listLines')).lines.find((l) => l.name === 'route-line'),
      added.line,
    );
    const updated = await call('updateLine', {
      params: { name: 'route-line' },
      body: { rpm: 120, priority: 3, timeouts: { totalMs: 600_000 } },
    });
    assert.deepEqual(
      [updated.line.rpm, updated.line.priority, updated.line.timeouts],
      [120, 3, { firstByteMs: 30_000, totalMs: 600_000 }],
    );
    const probe = await call('testLine', { params: { name: 'route-line' } });
    assert.deepEqual(
      [probe.ok, probe.status, probe.message],
      [true, 200, `reachable; ${MOCK_MODELS.length} models listed`],
    );
    assert.deepEqual((await call('listLineModels', { params: { name: 'route-line' } })).models, [...MOCK_MODELS]);

    await call('addLine', {
      body: {
        name: 'route-broken',
        protocol: 'openai-chat',
        baseUrl: scenarioBase(mock, 'status=503'),
        models: ['gpt-4o'],
      },
    });
    const failed = await call('testLine', { params: { name: 'route-broken' } });
    assert.deepEqual([failed.ok, failed.status], [false, 503]);
    // The failed test is the line's health now, not "healthy": the console and `lines list` show it.
    const health = (name: string) => call('listLines').then((r) => r.lines.find((l) => l.name === name)!.health);
    assert.deepEqual(
      (({ ok, status, message }) => ({ ok, status, message }))((await health('route-broken')).lastTest!),
      { ok: false, status: 503, message: failed.message },
    );
    assert.equal((await health('route-line')).lastTest?.ok, true);
    const upstream = await refusal(call('listLineModels', { params: { name: 'route-broken' } }));
    assert.deepEqual([upstream.status, upstream.code], [502, 'upstream_error']);
    assert.equal((await call('removeLine', { params: { name: 'route-broken' } })).line.name, 'route-broken');
    const missing = await refusal(call('removeLine', { params: { name: 'route-broken' } }));
    assert.deepEqual([missing.status, missing.code], [404, 'unknown_line']);
    await call('removeLine', { params: { name: 'route-line' } });
    assert.deepEqual(
      (await call('listLines')).lines.map((l) => l.name),
      ['served'],
    );
  });

  test('aliases: add, list, remove (a pattern with / and * in the path)', async () => {
    assert.deepEqual((await call('addAlias', { body: { pattern: 'openai/*', model: 'gpt-4o' } })).alias, {
      pattern: 'openai/*',
      model: 'gpt-4o',
    });
    assert.deepEqual((await call('listAliases')).aliases, [{ pattern: 'openai/*', model: 'gpt-4o' }]);
    assert.deepEqual((await call('removeAlias', { params: { pattern: 'openai/*' } })).alias, {
      pattern: 'openai/*',
      model: 'gpt-4o',
    });
    const again = await refusal(call('removeAlias', { params: { pattern: 'openai/*' } }));
    assert.deepEqual([again.status, again.code], [404, 'unknown_alias']);
  });

  test('listModels', async () => {
    const gpt4o = (await call('listModels')).models.find((m) => m.id === 'gpt-4o');
    assert.deepEqual(gpt4o?.lines, ['served']);
    assert.deepEqual(gpt4o?.access, {
      'openai-chat': 'native',
      anthropic: 'translated',
      'openai-responses': 'translated',
      gemini: 'translated',
    });
    assert.deepEqual(
      (await call('listModels', { query: { served: true, vendor: 'openai' } })).models.map((m) => m.id),
      ['gpt-4o'],
    );
  });

  test('models: addModel, getModel, updateModel, resetModel, removeModel (an id with / and : in the path)', async () => {
    const added = (
      await call('addModel', { body: { id: 'route/model:1', prices: { input: 1_000_000, output: 2_000_000 } } })
    ).model;
    assert.deepEqual(
      [added.origin, added.prices],
      ['custom', { input: 1_000_000, output: 2_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 }],
    );
    assert.deepEqual((await call('getModel', { params: { id: 'route/model:1' } })).model, added);
    assert.equal(
      (await call('updateModel', { params: { id: 'route/model:1' }, body: { prices: { output: 3_000_000 } } })).model
        .prices.output,
      3_000_000,
    );
    assert.equal(
      (await call('updateModel', { params: { id: 'gpt-4o' }, body: { prices: { output: 1 } } })).model.prices.output,
      1,
    );
    assert.equal((await call('resetModel', { params: { id: 'gpt-4o' } })).model.presetPrices, null);
    assert.equal((await call('removeModel', { params: { id: 'route/model:1' }, query: {} })).model.id, 'route/model:1');
    assert.equal((await refusal(call('getModel', { params: { id: 'route/model:1' } }))).code, 'unknown_model');
  });

  test('importPrices (dry run) and importLineModels', async () => {
    const plan = await call('importPrices', {
      body: {
        data: {
          'gpt-4o': {
            litellm_provider: 'openai',
            mode: 'chat',
            input_cost_per_token: 2.5e-6,
            output_cost_per_token: 1e-5,
          },
        },
        only: ['gpt-4o'],
        dryRun: true,
      },
    });
    assert.deepEqual([plan.unchanged, plan.changes, plan.applied], [['gpt-4o'], [], false]);
    const imported = await call('importLineModels', { params: { name: 'served' }, body: { free: true, dryRun: true } });
    assert.deepEqual(
      imported.added.map((m) => [m.id, m.priced]),
      [['mock-large', 'free']],
      'mock-small is gpt-4o on this line',
    );
  });

  test('groups: add, list', async () => {
    assert.deepEqual(
      (await call('addGroup', { body: { name: 'route-group', multiplier: '1.5', models: ['gpt-4o'] } })).group,
      { name: 'route-group', multiplier: '1.5', models: ['gpt-4o'] },
    );
    // 'editors' is the updateKey test's.
    assert.deepEqual(
      (await call('listGroups')).groups.filter((g) => g.name !== 'editors'),
      [
        { name: 'default', multiplier: '1', models: ['*'] },
        { name: 'route-group', multiplier: '1.5', models: ['gpt-4o'] },
      ],
    );
  });

  test('groups: updateGroup changes multiplier and models; removeGroup refuses default and groups in use', async () => {
    await call('addGroup', { body: { name: 'temp-group', multiplier: '2' } });
    const { group } = await call('updateGroup', {
      params: { name: 'temp-group' },
      body: { multiplier: '0.5', models: ['gpt-4o'] },
    });
    assert.deepEqual(group, { name: 'temp-group', multiplier: '0.5', models: ['gpt-4o'] });
    const bad = await refusal(
      call('updateGroup', { params: { name: 'temp-group' }, body: { models: ['no-such-model'] } }),
    );
    assert.deepEqual([bad.status, bad.code], [400, 'unknown_model']);
    const zero = await refusal(call('updateGroup', { params: { name: 'temp-group' }, body: { multiplier: '0' } }));
    assert.deepEqual([zero.status, zero.code], [400, 'bad_multiplier']);
    await call('createKey', { body: { name: 'group-user', group: 'temp-group' } });
    const inUse = await refusal(call('removeGroup', { params: { name: 'temp-group' } }));
    assert.deepEqual([inUse.status, inUse.code], [409, 'group_in_use']);
    await call('deleteKey', { params: { name: 'group-user' } });
    assert.deepEqual((await call('removeGroup', { params: { name: 'temp-group' } })).group.name, 'temp-group');
    assert.ok(
      !(await call('listGroups')).groups.some((g) => g.name === 'temp-group'),
      'the removed group is not listed',
    );
    const def = await refusal(call('removeGroup', { params: { name: 'default' } }));
    assert.deepEqual([def.status, def.code], [400, 'default_group']);
    const gone = await refusal(call('updateGroup', { params: { name: 'temp-group' }, body: {} }));
    assert.deepEqual([gone.status, gone.code], [404, 'unknown_group']);
  });

  test('keyStorage and probeLine, asked before a line exists (more in test/operations/line-setup.test.ts)', async () => {
    assert.equal(typeof (await call('keyStorage')).keychain, 'boolean');
    const probed = await call('probeLine', { body: { protocol: 'openai-chat', baseUrl: `${mock.url}/v1` } });
    assert.ok(probed.models.some((m) => m.id === 'mock-small' && m.catalogueId === null));
    assert.ok(Array.isArray((await call('getLineUsage')).lines));
  });

  test('listLogs with key, model, request id, limit, before and after, and getLogSummary', async () => {
    const secret = (await call('createKey', { body: { name: 'route-logs' } })).secret;
    const openai = gw.openai(secret);
    for (const content of ['one', 'two', 'three'])
      await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
    const all = (await call('listLogs', { query: { key: 'route-logs' } })).entries;
    assert.equal(all.length, 3);
    assert.ok(
      all.every(
        (e) =>
          e.keyName === 'route-logs' &&
          e.model === 'gpt-4o' &&
          e.line === 'served' &&
          e.status === 200 &&
          e.costMicro > 0,
      ),
    );
    const [newest] = (await call('listLogs', { query: { key: 'route-logs', model: 'gpt-4o', limit: 1 } })).entries;
    assert.equal(newest?.id, all[0]!.id);
    const older = (await call('listLogs', { query: { key: 'route-logs', before: all[0]!.id } })).entries;
    assert.deepEqual(
      older.map((e) => e.id),
      [all[1]!.id, all[2]!.id],
    );
    // After an id: the newer entries, oldest first (how a client catches up on a growing log).
    const newer = (await call('listLogs', { query: { key: 'route-logs', after: all[2]!.id } })).entries;
    assert.deepEqual(
      newer.map((e) => e.id),
      [all[1]!.id, all[0]!.id],
    );
    assert.deepEqual((await call('listLogs', { query: { model: 'no-such-model' } })).entries, []);
    const summary = await call('getLogSummary', { query: { key: 'route-logs' } });
    const cost = all.reduce((t, e) => t + e.costMicro, 0);
    assert.deepEqual([summary.requests, summary.errors, summary.costMicro], [3, 0, cost]);
    assert.equal((await call('getLogSummary', { query: { requestId: all[1]!.requestId } })).requests, 1);
    const [found] = (await call('listLogs', { query: { requestId: all[1]!.requestId } })).entries;
    assert.equal(found?.id, all[1]!.id);
  });

  test('runDoctor', async () => {
    const report = await call('runDoctor');
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.ok(report.checks.some((c) => c.name === 'ledger invariant' && c.ok));
  });
});

test('every route of the table is called in this file or routes-tools.test.ts', () => {
  const source = [fileURLToPath(import.meta.url), fileURLToPath(new URL('./routes-tools.test.ts', import.meta.url))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const called = new Set([...source.matchAll(/\bcall\('(\w+)'/g)].map((m) => m[1]));
  assert.deepEqual(
    Object.keys(ADMIN_ROUTES).filter((name) => !called.has(name)),
    [],
  );
});
