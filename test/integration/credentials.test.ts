/**
 * Upstream credentials live only in the OS keychain (a real Secret Service: run the suite under
 * test/helpers/keyring-session.sh, as .ci/run does). A known canary credential must never show up
 * in the data dir, the gateway's output, admin API answers or error messages.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { keychainAvailable, openKeychain } from '../../gateway/store/secrets.js';
import { REPO, spawnGateway, tempDataDir, type ChildGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const CANARY = `sk-test-CANARY-${randomBytes(12).toString('hex')}`;
const CANARY_2 = `sk-test-CANARY-${randomBytes(12).toString('hex')}`;
let available = false;
let mock: MockUpstream;
let gw: ChildGateway;
let dataDir: string;
const seen: string[] = [];

function tollgate(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO, 'gateway/cli/main.ts'), ...args],
      { cwd: REPO, env: { ...process.env, TOLLGATE_DATA_DIR: dataDir } },
      (err, stdout, stderr) => {
        seen.push(stdout, stderr);
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin!.end(input ?? '');
  });
}

before(async () => {
  available = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS) && (await keychainAvailable());
  if (process.env.TOLLGATE_KEYRING_SESSION === '1')
    assert.ok(available, 'the keyring session was started but no Secret Service answers');
  if (!available) return;
  mock = await startMockUpstream();
  dataDir = tempDataDir();
  gw = await spawnGateway(dataDir);
});

after(async () => {
  if (!available) return;
  gw.child.kill('SIGTERM');
  await gw.exited;
  await mock.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const skip = (): string | false =>
  process.env.DBUS_SESSION_BUS_ADDRESS ? false : 'no Secret Service; run under bash test/helpers/keyring-session.sh';

test(
  '--api-key-stdin keeps the key in the keychain; requests use it; update and remove follow',
  { skip: skip() },
  async (t) => {
    if (!available) return t.skip('no Secret Service answered');
    const add = await tollgate(
      [
        'lines',
        'add',
        '--name',
        'vault',
        '--protocol',
        'openai-chat',
        '--base-url',
        `${mock.url}/v1`,
        '--models',
        'gpt-4o-mini',
        '--api-key-stdin',
      ],
      `${CANARY}\n`,
    );
    assert.equal(add.code, 0, add.stderr);
    await tollgate(['wallet', 'topup', '5']);
    const secret = (await tollgate(['keys', 'create', '--name', 'user'])).stdout.trim();
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: secret, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(mock.requests.at(-1)!.headers.authorization, `Bearer ${CANARY}`);

    const { lines } = await gw.admin.client.call('listLines');
    seen.push(JSON.stringify(lines));
    const line = lines.find((l) => l.name === 'vault')!;
    assert.equal(line.apiKeySource, 'keychain');
    assert.equal(await openKeychain().get(line.id), CANARY, 'stored under service Tollgate, account = line id');
    seen.push((await tollgate(['lines', 'list'])).stdout);

    assert.equal((await tollgate(['lines', 'update', 'vault', '--api-key-stdin'], CANARY_2)).code, 0);
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'again' }] });
    assert.equal(mock.requests.at(-1)!.headers.authorization, `Bearer ${CANARY_2}`);
    assert.equal(await openKeychain().get(line.id), CANARY_2);

    // Failures around the line say nothing of the key.
    const rejected = await tollgate(
      [
        'lines',
        'add',
        '--name',
        'bad',
        '--protocol',
        'openai-chat',
        '--base-url',
        `https://u:${CANARY}@example.com/v1`,
        '--models',
        'gpt-4o',
      ],
      '',
    );
    assert.equal(rejected.code, 1);
    await tollgate(
      [
        'lines',
        'add',
        '--name',
        'denied',
        '--protocol',
        'openai-chat',
        '--base-url',
        scenarioBase(mock, 'status=401'),
        '--models',
        'gpt-4o',
        '--api-key-stdin',
      ],
      CANARY,
    );
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    assert.ok(err instanceof OpenAI.APIError && err.status === 502);
    seen.push(err.message, JSON.stringify(err.error));
    seen.push((await tollgate(['lines', 'test', 'denied'])).stdout);
    seen.push(JSON.stringify(await gw.admin.logs()));

    assert.equal((await tollgate(['lines', 'remove', 'vault'])).code, 0);
    assert.equal(await openKeychain().get(line.id), undefined, 'removing the line removes its key');
  },
);

test(
  'the canary credentials appear nowhere: data dir, gateway output, CLI output, API answers, errors',
  { skip: skip() },
  async (t) => {
    if (!available) return t.skip('no Secret Service answered');
    seen.push(gw.output());
    const files = readdirSync(dataDir).map((f) => join(dataDir, f));
    assert.ok(files.some((f) => f.endsWith('config.json')) && files.some((f) => f.includes('ledger.sqlite')));
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const canary of [CANARY, CANARY_2]) assert.ok(!bytes.includes(canary), `${f} holds a credential`);
    }
    for (const text of seen)
      for (const canary of [CANARY, CANARY_2])
        assert.ok(!text.includes(canary), `output holds a credential: ${text.slice(0, 200)}`);
  },
);
