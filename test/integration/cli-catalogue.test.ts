/** The CLI's catalogue commands (models, prices, imports), run as a user runs them, against a running gateway. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { REPO, runCli, startGateway, tempDataDir, type TestGateway } from '../helpers/gateway.js';
import { Ledger } from '../../gateway/store/ledger.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { writeOldLedger } from '../helpers/old-ledger.js';

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

describe('the catalogue from the CLI: models a line serves, custom models, prices and imports', () => {
  const listed = (ids: string[], extra: string): string => `${extra},models=${ids.map(encodeURIComponent).join('|')}`;
  const ask = async (secret: string, model: string): Promise<number> =>
    (
      await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      })
    ).status;

  test('an Ollama line with a model the catalogue lacks serves it at price 0; logs --explain says why it cost nothing', async () => {
    await tollgate(['wallet', 'topup', '5']);
    const secret = (await tollgate(['keys', 'create', '--name', 'catalogue-cli'])).stdout.trim();
    const add = await tollgate([
      'lines',
      'add',
      '--preset',
      'ollama',
      '--base-url',
      scenarioBase(mock, 'usage-in=700,usage-out=70'),
      '--models',
      'qwen3-coder:30b',
    ]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /Added to the catalogue at price 0: qwen3-coder:30b\./);
    assert.equal(await ask(secret, 'qwen3-coder:30b'), 200);
    const explained = await tollgate(['logs', '--model', 'qwen3-coder:30b', '--explain']);
    assert.match(explained.stdout, /qwen3-coder:30b \$0\.000000: 700 input × \$0\/M \+ 70 output × \$0\/M = \$0/);
  });

  test('lines add with an unknown id says so and how to add it in the same command; --add-models with prices does', async () => {
    const base = `${mock.url}/v1`;
    const refused = await tollgate([
      'lines',
      'add',
      '--name',
      'nova',
      '--protocol',
      'openai-chat',
      '--base-url',
      base,
      '--models',
      'nova-1=mock-small',
    ]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Not in the catalogue: nova-1\..*--add-models --input USD --output USD.*--free/);
    const added = await tollgate([
      'lines',
      'add',
      '--name',
      'nova',
      '--protocol',
      'openai-chat',
      '--base-url',
      base,
      '--models',
      'nova-1=mock-small',
      '--add-models',
      '--input',
      '1.25',
      '--output',
      '5',
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stdout,
      /Added to the catalogue: nova-1 at \$1\.25 input \/ \$5\.00 output per million tokens \(your prices\)/,
    );
    const secret = (await tollgate(['keys', 'create', '--name', 'nova-user'])).stdout.trim();
    assert.equal(await ask(secret, 'nova-1'), 200);
    const [row] = JSON.parse((await tollgate(['logs', '--model', 'nova-1', '--limit', '1', '--json'])).stdout) as {
      costMicro: number;
      breakdown: { costMicro: number; terms: { priceMicroPerMillion: number }[] };
    }[];
    assert.deepEqual(
      row?.breakdown.terms.map((t) => t.priceMicroPerMillion),
      [1_250_000, 5_000_000],
    );
    assert.equal(row?.breakdown.costMicro, row?.costMicro);
  });

  test('models add, update, list, reset and remove', async () => {
    const add = await tollgate([
      'models',
      'add',
      'acme-9',
      '--vendor',
      'acme',
      '--input',
      '3',
      '--output',
      '15',
      '--context',
      '200000',
    ]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(
      add.stdout,
      /Added acme-9 \(acme, custom\): input \$3\.00, output \$15\.00, cache-read \$3\.00, cache-write \$3\.00 per million tokens/,
    );
    assert.match((await tollgate(['models', 'add', 'acme-9', '--input', '1', '--output', '1'])).stderr, /already/i);
    assert.match((await tollgate(['models', 'add', 'acme-10'])).stderr, /needs --input and --output/);
    assert.equal((await tollgate(['models', 'update', 'gpt-4.1', '--input', '1.5'])).code, 0);
    const overridden = await tollgate(['models', 'list', '--vendor', 'openai', '--search', 'gpt-4.1']);
    assert.match(overridden.stdout, /gpt-4\.1 +openai +\$1\.50\* +\$8\.00 /);
    const custom = JSON.parse((await tollgate(['models', 'list', '--custom', '--json'])).stdout) as { id: string }[];
    assert.ok(custom.some((m) => m.id === 'acme-9') && custom.every((m) => m.id !== 'gpt-4.1'));
    assert.equal((await tollgate(['models', 'reset', 'gpt-4.1'])).code, 0);
    assert.match(
      (await tollgate(['models', 'list', '--search', 'gpt-4.1'])).stdout,
      /gpt-4\.1 +openai +\$2\.00 +\$8\.00 /,
    );
    const presetRemoval = await tollgate(['models', 'remove', 'gpt-4.1']);
    assert.equal(presetRemoval.code, 1);
    assert.equal((await tollgate(['models', 'remove', 'acme-9'])).code, 0);
    assert.equal((await tollgate(['models', 'list', '--search', 'acme-9', '--json'])).stdout.includes('acme-9'), false);
  });

  test('models import: a LiteLLM price file previewed, then written with --yes; retired models listed', async () => {
    const file = join(REPO, 'test/fixtures/litellm/model_prices_and_context_window.json');
    const preview = await tollgate(['models', 'import', file, '--dry-run']);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /gpt-4o-mini +input +\$0\.15 +\$0\.16 /);
    assert.match(preview.stdout, /would change/);
    assert.match(
      (await tollgate(['models', 'list', '--search', 'gpt-4o-mini'])).stdout,
      /\$0\.15 /,
      'a dry run writes nothing',
    );
    const refused = await tollgate(['models', 'import', file]);
    assert.equal(refused.code, 1, 'not a terminal and no --yes: nothing written');
    assert.match(refused.stderr, /add --yes/);
    const written = await tollgate(['models', 'import', file, '--yes']);
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stdout, /Wrote the prices of \d+ models?\./);
    assert.match(
      (await tollgate(['models', 'list', '--search', 'gpt-4o-mini'])).stdout,
      /gpt-4o-mini +openai +\$0\.16\* /,
    );
    const retired = await tollgate(['models', 'list', '--status', 'retired']);
    assert.match(retired.stdout, /o4-mini +openai +- +gpt-5\.4-mini/);
  });

  test('lines models NAME --import --free serves every listed id, the new ones at price 0', async () => {
    const base = scenarioBase(mock, listed(['brand-new-1', 'gpt-4o'], 'usage-in=5'));
    assert.equal(
      (
        await tollgate([
          'lines',
          'add',
          '--name',
          'lister',
          '--protocol',
          'openai-chat',
          '--base-url',
          base,
          '--models',
          'gpt-4o',
        ])
      ).code,
      0,
    );
    const dry = await tollgate(['lines', 'models', 'lister', '--import', '--free', '--dry-run']);
    assert.match(dry.stdout, /Line "lister" would serve 1 more: brand-new-1\./);
    const done = await tollgate(['lines', 'models', 'lister', '--import', '--free']);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /now serves 1 more: brand-new-1\.\n {2}Added to the catalogue at price 0: brand-new-1\./);
    const served = JSON.parse(
      (await tollgate(['models', 'list', '--served', '--search', 'brand-new', '--json'])).stdout,
    ) as { id: string; lines: string[] }[];
    assert.deepEqual(
      served.map((m) => [m.id, m.lines]),
      [['brand-new-1', ['lister']]],
    );
  });
});

describe('without a running gateway', () => {
  test('commands say how to start one', async () => {
    const dir = tempDataDir();
    const r = await tollgate(['keys', 'list'], dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /No Tollgate gateway is running for the data dir .*"npx tollgate serve"/);
  });

  test('doctor reads the data dir directly and fails on a broken invariant', async () => {
    const dir = tempDataDir();
    assert.equal((await tollgate(['doctor'], dir)).code, 0);
    const db = new Database(join(dir, 'ledger.sqlite'));
    db.prepare('UPDATE wallet SET balance_micro = 5 WHERE id = 1').run();
    db.close();
    const r = await tollgate(['doctor'], dir);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL +ledger invariant/);
  });

  test('doctor fails on a float or negative balance, a negative cost and a request left without a settlement', async () => {
    const dir = writeOldLedger(tempDataDir(), -8_000_000_000, -8e300);
    const r = await tollgate(['doctor'], dir);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL +wallet balance: the stored balance is -8e\+300/);
    assert.match(r.stdout, /FAIL +ledger rows: 1 rows with a negative or fractional cost or token count: req_old/);

    const cut = tempDataDir();
    const ledger = new Ledger(cut);
    ledger.open({
      requestId: 'req_cut',
      ts: Date.now(),
      keyId: null,
      keyName: null,
      model: 'gpt-4.1-mini',
      inboundProtocol: 'openai-chat',
      stream: true,
      heldMicro: 500,
    });
    ledger.close();
    const left = await tollgate(['doctor'], cut);
    assert.equal(left.code, 1);
    assert.match(
      left.stdout,
      /FAIL +settlement: 1 requests were admitted by a gateway that stopped before settling them \(req_cut\)/,
    );
  });

  test('a corrupt config stops start-up with a clear message and a kept copy', async () => {
    const dir = tempDataDir();
    writeFileSync(join(dir, 'config.json'), '{"version": 1, "keys": [');
    const r = await tollgate(['serve', '--port', '0'], dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /config file .* cannot be read .* A copy was kept at .*config\.json\.corrupt-/);
  });
});
