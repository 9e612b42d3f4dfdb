/**
 * A damaged, full or read-only data dir (docs/reliability.md): start-up stops with a clear message
 * and keeps what was there; a gateway that runs out of disk answers errors and loses nothing it
 * acknowledged; files and the dir are private to the user.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { serve } from '../../gateway/serve.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import { tollgateCli } from '../helpers/cli.js';
import { startGateway, tempDataDir, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { mountTmpfs } from '../helpers/mount.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});

after(async () => {
  await mock.close();
});

/** A data dir with a line, a key and $3, as a user's would be; the gateway is closed again. */
async function populated(dataDir = tempDataDir()): Promise<{ dataDir: string; secret: string }> {
  const gw = await startGateway(dataDir, new MemorySecretStore());
  await gw.admin.line({ name: 'l', baseUrl: scenarioBase(mock, 'words=5'), models: ['gpt-4o-mini'] });
  await gw.admin.topup(3);
  const secret = await gw.admin.key('kept');
  await gw.running.close();
  return { dataDir, secret };
}

function open(dataDir: string) {
  return serve({ dataDir, host: '127.0.0.1', port: 0, secrets: new MemorySecretStore() });
}

/** The refusal an in-process start gives, and the CLI's one line for it (no stack trace). */
async function refusedStart(dataDir: string): Promise<{ message: string; cli: string }> {
  const err = await open(dataDir).then(
    async (r) => {
      await r.close();
      return assert.fail('the gateway started');
    },
    (e: unknown) => e as Error,
  );
  const cli = await tollgateCli(['serve', '--port', '0'], dataDir);
  assert.equal(cli.code, 1);
  assert.doesNotMatch(cli.stderr, /\n\s+at /, `a stack trace: ${cli.stderr}`);
  return { message: err.message, cli: cli.stderr };
}

/** Starts on `dataDir` and checks the key, the line and the balance are all still there. */
async function assertIntact(dataDir: string, secret: string): Promise<void> {
  const running = await open(dataDir);
  try {
    const c = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: secret, maxRetries: 0 });
    const r = await c.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'still there?' }],
    });
    assert.equal(r.choices[0]!.message.content, 'w1 w2 w3 w4 w5');
    assert.ok(running.gateway.ledger.balanceMicro() < 3_000_000 && running.gateway.ledger.balanceMicro() > 2_900_000);
    assert.equal(running.gateway.ledger.checkInvariant().ok, true);
  } finally {
    await running.close();
  }
}

describe('a damaged config file', () => {
  const damages: [string, (text: string) => string][] = [
    ['garbage', () => '\u0000\u0001not json at all'],
    ['truncated', (text) => text.slice(0, Math.floor(text.length / 2))],
    ['emptied (as after a power cut)', () => ''],
    ['a JSON array', () => '[]'],
    ['keys that are not a list', (text) => JSON.stringify({ ...JSON.parse(text), keys: 'oops' })],
    [
      'a key record without its hash',
      (text) => {
        const c = JSON.parse(text);
        delete c.keys[0].hash;
        return JSON.stringify(c);
      },
    ],
  ];
  for (const [what, damage] of damages) {
    test(`${what}: start-up stops with a clear message, the damaged file is kept, keys and balance survive`, async () => {
      const { dataDir, secret } = await populated();
      try {
        const path = join(dataDir, 'config.json');
        const good = readFileSync(path, 'utf8');
        const bad = damage(good);
        writeFileSync(path, bad);
        const { message, cli } = await refusedStart(dataDir);
        assert.match(message, /The config file .*config\.json cannot be (read|used)/);
        assert.match(cli, /^tollgate: The config file/m);
        // Never reset: the file is as it was, and a copy of it was kept.
        assert.equal(readFileSync(path, 'utf8'), bad);
        const copies = readdirSync(dataDir).filter((f) => f.startsWith('config.json.corrupt-'));
        assert.ok(copies.length >= 1, 'a kept copy');
        assert.equal(readFileSync(join(dataDir, copies[0]!), 'utf8'), bad);
        // Repaired, everything is there, and the refused start left the data dir free.
        writeFileSync(path, good);
        await assertIntact(dataDir, secret);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

test('a damaged ledger: start-up stops with a clear message and the ledger is left as it was', async () => {
  const { dataDir, secret } = await populated();
  try {
    const path = join(dataDir, 'ledger.sqlite');
    const good = readFileSync(path);
    const bad = Buffer.concat([Buffer.from('this is not a database'), good.subarray(64)]);
    writeFileSync(path, bad);
    const { message, cli } = await refusedStart(dataDir);
    assert.match(message, /The ledger .*ledger\.sqlite cannot be opened/);
    assert.match(cli, /^tollgate: The ledger/m);
    assert.deepEqual(readFileSync(path), bad, 'not recreated, not changed');
    writeFileSync(path, good);
    await assertIntact(dataDir, secret);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('files and folders are private', () => {
  test('a new data dir is 0700 and every file in it 0600', async () => {
    const root = tempDataDir();
    const dataDir = join(root, 'new');
    try {
      const { secret } = await populated(dataDir);
      await assertIntact(dataDir, secret);
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
      for (const f of readdirSync(dataDir)) assert.equal(statSync(join(dataDir, f)).mode & 0o777, 0o600, f);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('an existing data dir and its files are tightened at start', async () => {
    const { dataDir, secret } = await populated();
    try {
      chmodSync(dataDir, 0o755);
      for (const f of readdirSync(dataDir)) chmodSync(join(dataDir, f), 0o644);
      await assertIntact(dataDir, secret);
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
      for (const f of readdirSync(dataDir)) assert.equal(statSync(join(dataDir, f)).mode & 0o777, 0o600, f);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a full disk and a read-only data dir', () => {
  test('a read-only data dir: start-up stops with a clear message', async (t) => {
    const disk = mountTmpfs(4096);
    if (typeof disk === 'string') return t.skip(disk);
    try {
      const { secret } = await populated(join(disk.path, 'data'));
      disk.readOnly(true);
      const { message, cli } = await refusedStart(join(disk.path, 'data'));
      assert.match(message, /read-only/);
      assert.match(cli, /^tollgate: .*read-only/m);
      disk.readOnly(false);
      await assertIntact(join(disk.path, 'data'), secret);
    } finally {
      disk.unmount();
    }
  });

  test('a disk too full to start: a clear message, nothing changed', async (t) => {
    const disk = mountTmpfs(4096);
    if (typeof disk === 'string') return t.skip(disk);
    try {
      const dataDir = join(disk.path, 'data');
      const { secret } = await populated(dataDir);
      const before = readFileSync(join(dataDir, 'config.json'), 'utf8');
      fill(disk.path);
      const { message, cli } = await refusedStart(dataDir);
      assert.match(message, /no space left|disk is full/i);
      assert.match(cli, /^tollgate: .*(no space left|disk is full)/im);
      assert.equal(readFileSync(join(dataDir, 'config.json'), 'utf8'), before);
      rmSync(join(disk.path, 'filler'), { recursive: true });
      await assertIntact(dataDir, secret);
    } finally {
      disk.unmount();
    }
  });

  test('the disk fills while the gateway runs: clear errors, no crash, nothing acknowledged lost', async (t) => {
    const disk = mountTmpfs(4096);
    if (typeof disk === 'string') return t.skip(disk);
    let gw: TestGateway | undefined;
    try {
      const dataDir = join(disk.path, 'data');
      gw = await startGateway(dataDir, new MemorySecretStore());
      await gw.admin.line({ name: 'l', baseUrl: scenarioBase(mock, 'words=200'), models: ['gpt-4o-mini'] });
      await gw.admin.topup(3);
      const c = gw.openai(await gw.admin.key('k'));
      fill(disk.path);
      const acknowledged: string[] = [];
      const failures: string[] = [];
      for (let i = 0; i < 60; i++) {
        try {
          const stream = i % 2 === 0;
          if (stream) {
            const { data, response } = await c.chat.completions
              .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }], stream: true })
              .withResponse();
            for await (const _ of data) void _;
            acknowledged.push(response.headers.get('x-request-id')!);
          } else {
            const { response } = await c.chat.completions
              .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] })
              .withResponse();
            acknowledged.push(response.headers.get('x-request-id')!);
          }
        } catch (err) {
          failures.push(String(err));
        }
      }
      assert.ok(failures.length > 0, 'the disk filled up');
      for (const f of failures) assert.match(f, /could not record|disk is full|no space/i, f);
      // The admin API still answers; the gateway did not crash.
      await gw.admin.wallet();
      rmSync(join(disk.path, 'filler'), { recursive: true });
      // Space again: requests work, and every acknowledged answer has its row.
      const after = await c.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'after' }],
      });
      assert.match(after.choices[0]!.message.content!, /^w1 /);
      const rows = await gw.admin.logs({ key: 'k' });
      const ok = new Set(rows.filter((r) => r.status === 200).map((r) => r.requestId));
      for (const id of acknowledged) assert.ok(ok.has(id), `acknowledged ${id} has no row`);
      // The ledger is whole; the doctor still reports the writes that failed since start, by design.
      const doctor = await gw.admin.doctor();
      for (const c of doctor.checks) if (c.name !== 'ledger writes') assert.equal(c.ok, true, `${c.name}: ${c.detail}`);
      assert.match(
        doctor.checks.find((c) => c.name === 'ledger writes')?.detail ?? '',
        /failed since the gateway started.*(full|space)/,
      );
      assert.equal((await gw.admin.wallet()).heldMicro, 0);
    } finally {
      await gw?.running.close();
      disk.unmount();
    }
  });
});

/** Fills the file system at `root` to the last byte. */
function fill(root: string): void {
  mkdirSync(join(root, 'filler'), { recursive: true });
  const block = Buffer.alloc(64 * 1024, 1);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(root, 'filler', String(i)), block);
    } catch {
      break;
    }
  }
  // The last bytes too: small files until nothing fits.
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(root, 'filler', `s${i}`), 'x');
    } catch {
      break;
    }
  }
  assert.ok(existsSync(join(root, 'filler', '0')));
}
