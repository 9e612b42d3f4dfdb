/** The `tollgate` CLI's commands (wallet, keys, lines, presets, groups, aliases, logs, doctor), run as a user runs them, against a running gateway. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;

function tollgate(args: string[], dataDir = gw.dataDir): ReturnType<typeof runCli> {
  return runCli(args, dataDir);
}

before(async () => {
  gw = await startGateway();
  mock = await startMockUpstream();
});

after(async () => {
  await gw.close();
  await mock.close();
});

describe('tollgate CLI', () => {
  test('wallet topup and show, in USD and as micro-USD with --json', async () => {
    const top = await tollgate(['wallet', 'topup', '2.5']);
    assert.equal(top.code, 0, top.stderr);
    assert.match(top.stdout, /Added \$2\.50\./);
    const show = await tollgate(['wallet', 'show', '--json']);
    const w = JSON.parse(show.stdout);
    assert.equal(w.balanceMicro, 2_500_000);
    assert.equal(w.balanceUsd, '2.50');
    assert.match((await tollgate(['wallet', 'show'])).stdout, /Balance: +\$2\.50/);
    const bad = await tollgate(['wallet', 'topup', '1.0000001']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /at most 6 decimals/);
  });

  test('wallet adjust: a signed correction with a required note, shown in the history', async () => {
    const down = await tollgate(['wallet', 'adjust', '-0.5', '--note', 'top-up entered twice']);
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stdout, /Adjusted by -\$0\.50\./);
    assert.match(down.stdout, /Adjusted: +-\$0\.50/);
    assert.equal((await tollgate(['wallet', 'adjust', '+0.25', '--note', 'credit'])).code, 0);
    const w = JSON.parse((await tollgate(['wallet', 'show', '--json'])).stdout) as {
      balanceMicro: number;
      adjustmentsMicro: number;
    };
    assert.deepEqual([w.balanceMicro, w.adjustmentsMicro], [2_250_000, -250_000]);
    const noNote = await tollgate(['wallet', 'adjust', '1']);
    assert.equal(noNote.code, 1);
    assert.match(noNote.stderr, /--note/);
    const tooMuch = await tollgate(['wallet', 'adjust', '-100', '--note', 'x']);
    assert.equal(tooMuch.code, 1);
    assert.match(tooMuch.stderr, /below zero/);
    const { transactions } = await gw.admin.client.call('listWalletTransactions');
    assert.deepEqual(
      transactions.slice(0, 2).map((t) => [t.kind, t.amountMicro, t.note]),
      [
        ['adjustment', 250_000, 'credit'],
        ['adjustment', -500_000, 'top-up entered twice'],
      ],
    );
    assert.equal((await gw.admin.doctor()).ok, true);
  });

  test('keys create prints the secret alone; list, disable, enable, delete', async () => {
    const created = await tollgate(['keys', 'create', '--name', 'laptop', '--quota', '1.25']);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^sk-[A-Za-z0-9]{48}\n$/);
    const secret = created.stdout.trim();
    assert.match(created.stderr, /not shown again/);
    const listed = JSON.parse((await tollgate(['keys', 'list', '--json'])).stdout) as {
      name: string;
      quotaMicro: number;
      last4: string;
      state: string;
    }[];
    const k = listed.find((x) => x.name === 'laptop')!;
    assert.equal(k.quotaMicro, 1_250_000);
    assert.equal(k.last4, secret.slice(-4));
    assert.ok(!JSON.stringify(listed).includes(secret), 'the secret is never listed');
    assert.match((await tollgate(['keys', 'list'])).stdout, /laptop +default +enabled +sk-…/);
    assert.equal((await tollgate(['keys', 'create', '--name', 'laptop'])).code, 1, 'names are unique');

    assert.match((await tollgate(['keys', 'disable', 'laptop'])).stdout, /disabled/);
    const r = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(r.status, 401);
    await tollgate(['keys', 'enable', 'laptop']);
    assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status, 200);
    await tollgate(['keys', 'delete', 'laptop']);
    assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status, 401);
    assert.ok(!(await tollgate(['keys', 'list'])).stdout.includes('laptop'));
    const missing = await tollgate(['keys', 'disable', 'nobody']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no key named "nobody"/);
  });

  test('lines add, models list, groups add and list', async () => {
    const added = await tollgate([
      'lines',
      'add',
      '--name',
      'mock',
      '--protocol',
      'openai-chat',
      '--base-url',
      `${mock.url}/v1`,
      '--models',
      'gpt-4o-mini,gpt-4o=mock-large',
      '--rpm',
      '60',
      '--priority',
      '2',
      '--weight',
      '3',
    ]);
    assert.equal(added.code, 0, added.stderr);
    const lines = JSON.parse((await tollgate(['lines', 'list', '--json'])).stdout);
    assert.deepEqual(
      {
        models: lines[0].models,
        modelMap: lines[0].modelMap,
        rpm: lines[0].rpm,
        priority: lines[0].priority,
        weight: lines[0].weight,
      },
      { models: ['gpt-4o-mini', 'gpt-4o'], modelMap: { 'gpt-4o': 'mock-large' }, rpm: 60, priority: 2, weight: 3 },
    );
    const unknown = await tollgate([
      'lines',
      'add',
      '--name',
      'x',
      '--protocol',
      'openai-chat',
      '--base-url',
      `${mock.url}/v1`,
      '--models',
      'gpt-9000',
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Not in the catalogue: gpt-9000/);
    const models = JSON.parse((await tollgate(['models', 'list', '--json'])).stdout) as {
      id: string;
      prices: { input: number };
      lines: string[];
      access: Record<string, string>;
    }[];
    const mini = models.find((m) => m.id === 'gpt-4o-mini')!;
    assert.equal(mini.prices.input, 150_000);
    assert.deepEqual(mini.lines, ['mock']);
    assert.deepEqual(mini.access, {
      'openai-chat': 'native',
      anthropic: 'translated',
      'openai-responses': 'translated',
      gemini: 'translated',
    });
    assert.equal(models.find((m) => m.id === 'claude-haiku-4-5')!.access.anthropic, 'unavailable');
    assert.match(
      (await tollgate(['models', 'list'])).stdout,
      /gpt-4o-mini .* mock +native +translated +translated +translated/,
    );
    assert.match((await tollgate(['models', 'list'])).stdout, /gpt-4o-mini +openai +\$0\.15 +\$0\.60/);
    assert.equal((await tollgate(['groups', 'add', 'team', '--multiplier', '0.8', '--models', 'gpt-4o-mini'])).code, 0);
    const groups = JSON.parse((await tollgate(['groups', 'list', '--json'])).stdout);
    assert.deepEqual(groups, [
      { name: 'default', multiplier: '1', models: ['*'] },
      { name: 'team', multiplier: '0.8', models: ['gpt-4o-mini'] },
    ]);
  });

  test('logs with filters, and doctor', async () => {
    const secret = (await tollgate(['keys', 'create', '--name', 'logger'])).stdout.trim();
    for (const model of ['gpt-4o-mini', 'gpt-4o']) {
      const r = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'log me' }] }),
      });
      assert.equal(r.status, 200);
    }
    const rows = JSON.parse((await tollgate(['logs', '--key', 'logger', '--json'])).stdout) as {
      model: string;
      costMicro: number;
      costUsd: string;
    }[];
    assert.deepEqual(
      rows.map((r) => r.model),
      ['gpt-4o', 'gpt-4o-mini'],
    );
    assert.ok(rows.every((r) => Number.isInteger(r.costMicro) && typeof r.costUsd === 'string'));
    const one = JSON.parse((await tollgate(['logs', '--model', 'gpt-4o', '--limit', '1', '--json'])).stdout);
    assert.equal(one.length, 1);
    assert.match((await tollgate(['logs', '--key', 'logger'])).stdout, /logger +gpt-4o +200/);

    // keys list: when each key was last used and what it spent over the last 30 days.
    const before = Date.now();
    await tollgate(['keys', 'create', '--name', 'idle']);
    const keys = JSON.parse((await tollgate(['keys', 'list', '--json'])).stdout) as {
      name: string;
      lastUsedAt: number | null;
      last30DaysMicro: number;
      last30DaysUsd: string;
      madeBy: string | null;
    }[];
    const logger = keys.find((k) => k.name === 'logger')!;
    const spent = rows.reduce((sum, r) => sum + r.costMicro, 0);
    assert.ok(spent > 0);
    assert.equal(logger.last30DaysMicro, spent);
    assert.ok(logger.lastUsedAt !== null && logger.lastUsedAt <= before, String(logger.lastUsedAt));
    assert.equal(logger.madeBy, null);
    const idle = keys.find((k) => k.name === 'idle')!;
    assert.deepEqual([idle.lastUsedAt, idle.last30DaysMicro, idle.last30DaysUsd], [null, 0, '0.00']);
    const listed = (await tollgate(['keys', 'list'])).stdout;
    assert.match(listed, /LAST USED \(UTC\)/);
    assert.match(listed, /^idle .* never /m);
    assert.match(listed, new RegExp(`^logger .* ${new Date(logger.lastUsedAt).toISOString().slice(0, 10)} `, 'm'));
    const doc = await tollgate(['doctor']);
    assert.equal(doc.code, 0, doc.stdout + doc.stderr);
    assert.match(doc.stdout, /ok +ledger invariant/);
  });
});

describe('lines from presets, and line tools', () => {
  test('lines add and update --quirk and --anthropic-version; bad values are refused before anything is sent', async () => {
    const add = await tollgate([
      'lines',
      'add',
      '--name',
      'claude-proxy',
      '--protocol',
      'anthropic',
      '--base-url',
      mock.url,
      '--models',
      'claude-haiku-4-5',
      '--anthropic-version',
      '2026-10-21',
      '--quirk',
      'structuredOutput=none',
    ]);
    assert.equal(add.code, 0, add.stderr);
    const view = async () =>
      (
        JSON.parse((await tollgate(['lines', 'list', '--json'])).stdout) as {
          name: string;
          quirks: Record<string, unknown>;
          anthropicVersion: string | null;
        }[]
      ).find((l) => l.name === 'claude-proxy')!;
    assert.deepEqual(
      [(await view()).anthropicVersion, (await view()).quirks],
      ['2026-10-21', { structuredOutput: null }],
    );
    const update = await tollgate([
      'lines',
      'update',
      'claude-proxy',
      '--anthropic-version',
      'default',
      '--quirk',
      'structuredOutput=output_config',
    ]);
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(
      [(await view()).anthropicVersion, (await view()).quirks],
      ['2023-06-01', { structuredOutput: 'output_config' }],
    );
    assert.equal((await tollgate(['lines', 'update', 'claude-proxy', '--quirk', 'structuredOutput=model'])).code, 0);
    assert.deepEqual((await view()).quirks, {}, 'model: the line has no word of its own any more');
    const bad = await tollgate(['lines', 'update', 'claude-proxy', '--quirk', 'reasoningField=thoughts']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /reasoningField takes reasoning_content, reasoning or none \(cleared\), or model/);
    const badDate = await tollgate(['lines', 'update', 'claude-proxy', '--anthropic-version', 'latest']);
    assert.equal(badDate.code, 1);
    assert.match(badDate.stderr, /--anthropic-version takes a date/);
    await tollgate(['lines', 'remove', 'claude-proxy']);
  });

  test('presets list, lines add --preset fills the rest, test / models / update / remove', async () => {
    const presets = JSON.parse((await tollgate(['presets', 'list', '--json'])).stdout) as { id: string }[];
    assert.deepEqual(presets.map((p) => p.id).sort(), [
      'anthropic',
      'deepseek',
      'google',
      'groq',
      'lmstudio',
      'mistral',
      'moonshot',
      'ollama',
      'openai',
      'openrouter',
      'xai',
    ]);
    const added = await tollgate(['lines', 'add', '--preset', 'openrouter']);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /reads its API key from \$OPENROUTER_API_KEY/);
    const line = (
      JSON.parse((await tollgate(['lines', 'list', '--json'])).stdout) as {
        name: string;
        baseUrl: string;
        protocol: string;
        modelMap: Record<string, string>;
        models: string[];
      }[]
    ).find((l) => l.name === 'openrouter')!;
    assert.equal(line.baseUrl, 'https://openrouter.ai/api/v1');
    assert.equal(line.protocol, 'openai-chat');
    assert.equal(line.modelMap['gpt-4o-mini'], 'openai/gpt-4o-mini');
    assert.ok(line.models.includes('claude-haiku-4-5'));
    const incomplete = await tollgate(['lines', 'add', '--name', 'x', '--base-url', 'http://127.0.0.1:1/v1']);
    assert.equal(incomplete.code, 1);
    assert.match(incomplete.stderr, /needs --protocol, --models, or --preset NAME/);

    await tollgate([
      'lines',
      'add',
      '--name',
      'local',
      '--protocol',
      'openai-chat',
      '--base-url',
      `${mock.url}/v1`,
      '--models',
      'gpt-4.1',
    ]);
    const ok = await tollgate(['lines', 'test', 'local']);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^ok +local: reachable; 2 models listed/);
    assert.deepEqual((await tollgate(['lines', 'models', 'local'])).stdout.trim().split('\n'), [
      'mock-small',
      'mock-large',
    ]);
    await tollgate([
      'lines',
      'add',
      '--name',
      'nowhere',
      '--protocol',
      'openai-chat',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--models',
      'gpt-4.1',
    ]);
    const bad = await tollgate(['lines', 'test', 'nowhere']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /^FAIL +nowhere:/);
    // The failed test is the line's health in `lines list`, not "ok".
    const rows = (await tollgate(['lines', 'list'])).stdout.split('\n');
    assert.match(
      rows.find((r) => r.startsWith('nowhere'))!,
      /test failed\s*$/,
    );
    assert.match(
      rows.find((r) => r.startsWith('local'))!,
      / ok\s*$/,
    );
    assert.equal((await tollgate(['lines', 'update', 'nowhere', '--disable', '--priority', '5'])).code, 0);
    const updated = (
      JSON.parse((await tollgate(['lines', 'list', '--json'])).stdout) as {
        name: string;
        enabled: boolean;
        priority: number;
      }[]
    ).find((l) => l.name === 'nowhere')!;
    assert.deepEqual([updated.enabled, updated.priority], [false, 5]);
    assert.equal((await tollgate(['lines', 'remove', 'nowhere'])).code, 0);
    assert.ok(!(await tollgate(['lines', 'list'])).stdout.includes('nowhere'));
  });

  test('timeouts: --first-byte-timeout, --idle-timeout and --timeout on add and update, shown by lines list', async () => {
    const add = await tollgate([
      'lines',
      'add',
      '--name',
      'timed',
      '--protocol',
      'openai-chat',
      '--base-url',
      `${mock.url}/v1`,
      '--models',
      'gpt-5',
      '--first-byte-timeout',
      '20s',
      '--idle-timeout',
      '90s',
      '--timeout',
      '10m',
    ]);
    assert.equal(add.code, 0, add.stderr);
    type Line = { name: string; timeouts: Record<string, number>; effectiveTimeouts: Record<string, number> };
    const timed = async (): Promise<Line> =>
      (JSON.parse((await tollgate(['lines', 'list', '--json'])).stdout) as Line[]).find((l) => l.name === 'timed')!;
    assert.deepEqual((await timed()).timeouts, { firstByteMs: 20_000, idleMs: 90_000, totalMs: 600_000 });
    assert.deepEqual((await timed()).effectiveTimeouts, {
      connectMs: 10_000,
      firstByteMs: 20_000,
      nonStreamingFirstByteMs: 300_000,
      idleMs: 90_000,
      totalMs: 600_000,
    });
    const upd = await tollgate([
      'lines',
      'update',
      'timed',
      '--first-byte-timeout',
      '1500ms',
      '--non-streaming-first-byte-timeout',
      '2m',
      '--connect-timeout',
      '5s',
    ]);
    assert.equal(upd.code, 0, upd.stderr);
    assert.deepEqual((await timed()).effectiveTimeouts, {
      connectMs: 5_000,
      firstByteMs: 1_500,
      nonStreamingFirstByteMs: 120_000,
      idleMs: 90_000,
      totalMs: 600_000,
    });
    await tollgate([
      'lines',
      'add',
      '--name',
      'untimed',
      '--protocol',
      'openai-chat',
      '--base-url',
      `${mock.url}/v1`,
      '--models',
      'gpt-5',
    ]);
    const list = (await tollgate(['lines', 'list'])).stdout;
    assert.match(list, /FIRST BYTE +IDLE +TIMEOUT/);
    assert.match(list, /timed .* 1500ms\/2m +1m30s +10m +ok/);
    assert.match(list, /untimed .* 45s\/5m +2m +30m +ok/, 'a line without its own timeouts shows the defaults');
    for (const bad of ['30', '5 minutes', '0s', '2d', '25h']) {
      const r = await tollgate(['lines', 'update', 'timed', '--timeout', bad]);
      assert.equal(r.code, 1, bad);
      assert.match(r.stderr, /--timeout (takes a duration with a unit|must be between 1ms and 24h)/, bad);
    }
  });

  test('aliases add, list, remove', async () => {
    assert.equal((await tollgate(['aliases', 'add', 'claude-*-haiku-*', 'gpt-4o-mini'])).code, 0);
    assert.match((await tollgate(['aliases', 'list'])).stdout, /claude-\*-haiku-\* +gpt-4o-mini/);
    assert.equal((await tollgate(['aliases', 'remove', 'claude-*-haiku-*'])).code, 0);
    assert.deepEqual(JSON.parse((await tollgate(['aliases', 'list', '--json'])).stdout), []);
  });
});
