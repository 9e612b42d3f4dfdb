/**
 * Upstream credentials in a real Secret Service (gnome-keyring), not a mock: run under
 *   bash test/helpers/keyring-session.sh npm test
 * which starts a private D-Bus session with a throwaway, unlocked keyring. Without one the keychain
 * tests skip and say why; under the wrapper (TOLLGATE_KEYRING_SESSION=1) they fail instead, so CI
 * cannot go green by skipping them.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect, promisify } from 'node:util';
import { Entry, findCredentialsAsync } from '@napi-rs/keyring';
import { keychainAvailable, KEYCHAIN_SERVICE, MemorySecretStore, openKeychain } from '../../gateway/store/secrets.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MODULE_URL = pathToFileURL(join(ROOT, 'gateway/store/secrets.ts')).href;
const WRAPPER = join(ROOT, 'test/helpers/keyring-session.sh');
const run = promisify(execFile);

/** Not the real service name, so a run against a developer's own keyring never touches real entries. */
const SERVICE = 'Tollgate-test';
const UNDER_WRAPPER = process.env.TOLLGATE_KEYRING_SESSION === '1';

async function whyNoKeychain(): Promise<string | undefined> {
  if (process.platform !== 'linux') return 'the keychain tests drive a Linux Secret Service';
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    return 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset); run under bash test/helpers/keyring-session.sh';
  if (!(await keychainAvailable(SERVICE)))
    return 'a D-Bus session is up but no unlocked Secret Service stored a probe entry';
  return undefined;
}
const noKeychain = await whyNoKeychain();
const skip = noKeychain ? `no Secret Service: ${noKeychain}` : false;

const hasTool = (name: string): boolean => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/** A fresh line id per use, so tests never see each other's entries. */
const used: string[] = [];
function lineId(): string {
  const id = `line_${randomBytes(8).toString('hex')}`;
  used.push(id);
  return id;
}

/** `secret-tool` reads the item as any other Secret Service client would. keyring-rs stores the account as `username`. */
async function secretToolLookup(service: string, account: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('secret-tool', ['lookup', 'service', service, 'username', account], {
      encoding: 'utf8',
    });
    return stdout;
  } catch {
    return undefined; // exit status 1: no such item
  }
}

/** Runs a script that imports gateway/store/secrets.ts in a child node and returns its JSON output. */
async function child(script: string, env: NodeJS.ProcessEnv, argv: string[] = []): Promise<unknown> {
  const node = [
    process.execPath,
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    `const m = await import(${JSON.stringify(MODULE_URL)});\n${script}`,
  ];
  const [cmd, ...args] = [...argv, ...node];
  const { stdout } = await run(cmd!, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as unknown;
}

/** Every way an error reaches a log or a user: message, stack, and Node's inspect (which prints `cause`). */
function everyRendering(err: unknown): string {
  const e = err as Error;
  return [String(e), e.message, e.stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)].join('\n');
}

describe('MemorySecretStore', () => {
  test('set, get, overwrite and delete', async () => {
    const store = new MemorySecretStore({ line_a: 'one' });
    assert.equal(store.kind, 'memory');
    assert.equal(await store.get('line_a'), 'one');
    await store.set('line_a', 'two');
    await store.set('line_b', 'three');
    assert.equal(await store.get('line_a'), 'two');
    await store.delete('line_a');
    await store.delete('line_a');
    assert.equal(await store.get('line_a'), undefined);
    assert.deepEqual(store.lineIds(), ['line_b']);
  });

  test('an empty credential or line id is refused without echoing anything secret', async () => {
    const store = new MemorySecretStore();
    await assert.rejects(store.set('line_a', ''), TypeError);
    await assert.rejects(
      store.set('', 'sk-never-echoed'),
      (err: Error) => err instanceof TypeError && !everyRendering(err).includes('sk-never-echoed'),
    );
  });
});

test('a line id the keychain would refuse is refused first, without echoing the secret', async () => {
  const store = openKeychain(SERVICE);
  await assert.rejects(
    store.set('', 'sk-refused-Hh5Jk9'),
    (err: unknown) => err instanceof TypeError && !everyRendering(err).includes('Hh5Jk9'),
  );
  await assert.rejects(store.set('line_a', ''), TypeError);
});

describe('the keychain without a Secret Service', { skip: process.platform === 'linux' ? false : 'Linux only' }, () => {
  test('keychainAvailable is false and errors name the line, never the secret', async () => {
    const secret = 'sk-no-bus-Zq8Xw3 clé 🔑';
    const out = (await child(
      `const store = m.openKeychain('${SERVICE}', { timeoutMs: 5000 });
       const errors = [];
       for (const f of [() => store.set('line_nobus', ${JSON.stringify(secret)}), () => store.get('line_nobus'), () => store.delete('line_nobus')]) {
         try { await f(); errors.push(null); } catch (e) { errors.push({ name: e.name, operation: e.operation, message: e.message, stack: e.stack, inspected: (await import('node:util')).inspect(e) }); }
       }
       console.log(JSON.stringify({ available: await m.keychainAvailable('${SERVICE}'), kind: store.kind, errors }));`,
      // A bus address that leads nowhere: what a headless server without a session bus looks like.
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/tollgate-test-bus',
      },
    )) as { available: boolean; kind: string; errors: ({ name: string; operation: string; message: string } | null)[] };
    assert.equal(out.available, false);
    assert.equal(out.kind, 'keychain');
    assert.deepEqual(
      out.errors.map((e) => e?.operation),
      ['set', 'get', 'delete'],
    );
    for (const e of out.errors) {
      assert.equal(e!.name, 'SecretStoreError');
      assert.match(e!.message, /line "line_nobus"/);
      assert.ok(!JSON.stringify(e).includes('Zq8Xw3'), `the secret leaked: ${JSON.stringify(e)}`);
    }
  });
});

describe('the keychain (a real Secret Service)', () => {
  // Under the wrapper a missing keychain is a broken CI setup, not a reason to skip.
  test('a Secret Service answers', { skip: UNDER_WRAPPER ? false : skip }, () => {
    assert.equal(noKeychain, undefined, `keyring-session.sh is running but ${noKeychain}`);
  });

  const store = openKeychain(SERVICE);

  after(async () => {
    if (noKeychain) return;
    for (const id of used) await store.delete(id).catch(() => undefined);
  });

  test('set, get, overwrite and delete round-trip', { skip }, async () => {
    const id = lineId();
    assert.equal(store.kind, 'keychain');
    await store.set(id, 'sk-first-Aa1');
    assert.equal(await store.get(id), 'sk-first-Aa1');
    await store.set(id, 'sk-second-Bb2');
    assert.equal(await store.get(id), 'sk-second-Bb2');
    await store.delete(id);
    assert.equal(await store.get(id), undefined);
  });

  test('a missing entry reads as undefined, and deleting it is not an error', { skip }, async () => {
    const id = lineId();
    assert.equal(await store.get(id), undefined);
    await store.delete(id);
    await store.delete(id);
  });

  test('two lines keep two credentials', { skip }, async () => {
    const [a, b] = [lineId(), lineId()];
    await store.set(a, 'sk-line-a');
    await store.set(b, 'sk-line-b');
    assert.equal(await store.get(a), 'sk-line-a');
    assert.equal(await store.get(b), 'sk-line-b');
    await store.delete(a);
    assert.equal(await store.get(a), undefined);
    assert.equal(await store.get(b), 'sk-line-b');
  });

  test('the same line id under another service is another entry', { skip }, async () => {
    const id = lineId();
    const other = openKeychain(`${SERVICE}-other`);
    await store.set(id, 'sk-here');
    assert.equal(await other.get(id), undefined);
    await other.set(id, 'sk-there');
    assert.equal(await store.get(id), 'sk-here');
    await other.delete(id);
    assert.equal(await store.get(id), 'sk-here');
  });

  test('the credential is really in the Secret Service, where other clients find it', { skip }, async () => {
    const id = lineId();
    await store.set(id, 'sk-visible-Cc3');
    // An independent client: a new synchronous Entry pinned to the Secret Service…
    assert.equal(new Entry(SERVICE, id, { linux: { store: 'secret-service' } }).getPassword(), 'sk-visible-Cc3');
    const listed = await findCredentialsAsync(SERVICE);
    assert.ok(listed.some((c) => c.account === id && c.password === 'sk-visible-Cc3'));
    // …and libsecret's command line tool, if installed (.ci/keyring-setup.sh installs it).
    if (hasTool('secret-tool')) {
      assert.equal(await secretToolLookup(SERVICE, id), 'sk-visible-Cc3');
      await store.delete(id);
      assert.equal(await secretToolLookup(SERVICE, id), undefined);
      // And the other way round: an item another client stored is read back.
      await run('sh', [
        '-c',
        `printf %s 'sk-from-secret-tool' | secret-tool store --label=test service ${SERVICE} username ${id}`,
      ]);
      assert.equal(await store.get(id), 'sk-from-secret-tool');
    } else {
      assert.ok(!UNDER_WRAPPER, 'secret-tool is missing: run .ci/keyring-setup.sh');
    }
  });

  test(
    `openKeychain() uses the service "${KEYCHAIN_SERVICE}" with the line id as account`,
    { skip: skip || (hasTool('secret-tool') ? false : 'needs secret-tool') },
    async () => {
      const real = openKeychain();
      const id = lineId();
      try {
        await real.set(id, 'sk-default-service');
        assert.equal(await secretToolLookup('Tollgate', id), 'sk-default-service');
      } finally {
        await real.delete(id);
      }
      assert.equal(await secretToolLookup('Tollgate', id), undefined);
    },
  );

  test('unicode, whitespace and long credentials come back byte for byte', { skip }, async () => {
    const values = [
      'clé-密钥-ключ-🔑-\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
      'e\u0301 (combining) vs \u00e9 (precomposed)',
      '  leading and trailing spaces\t',
      'line one\nline two',
      `sk-${'x'.repeat(4096)}`,
    ];
    const id = lineId();
    for (const value of values) {
      await store.set(id, value);
      assert.equal(await store.get(id), value);
    }
  });

  test('keychainAvailable leaves no probe entry behind', { skip }, async () => {
    assert.equal(await keychainAvailable(SERVICE), true);
    const left = (await findCredentialsAsync(SERVICE)).filter((c) => c.account.startsWith('tollgate-probe-'));
    assert.deepEqual(left, []);
  });

  test(
    'a locked keychain fails fast with an error that names the line, never the secret',
    { skip, timeout: 60_000 },
    async (t) => {
      // Locking the collection would break every later keychain test in this session, so this runs in
      // its own throwaway session. Headless, the unlock prompt cannot be shown and is dismissed.
      if (!hasTool('dbus-send') || !hasTool('gnome-keyring-daemon')) {
        assert.ok(!UNDER_WRAPPER, 'dbus-send or gnome-keyring-daemon is missing: run .ci/keyring-setup.sh');
        t.skip('needs dbus-send and gnome-keyring-daemon');
        return;
      }
      const secret = 'sk-locked-Qv7Lm2-ключ';
      const out = (await child(
        `const { execFileSync } = await import('node:child_process');
       const { inspect } = await import('node:util');
       const store = m.openKeychain('${SERVICE}', { timeoutMs: 20000 });
       await store.set('line_locked', ${JSON.stringify(secret)});
       execFileSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.secrets', '/org/freedesktop/secrets',
         'org.freedesktop.Secret.Service.Lock', 'array:objpath:/org/freedesktop/secrets/collection/login'], { stdio: 'ignore' });
       const errors = [];
       for (const f of [() => store.set('line_locked', ${JSON.stringify(`${secret}-new`)}), () => store.get('line_locked'), () => store.delete('line_locked')]) {
         try { await f(); errors.push(null); } catch (e) { errors.push({ name: e.name, operation: e.operation, message: e.message, stack: e.stack, inspected: inspect(e) }); }
       }
       console.log(JSON.stringify({ available: await m.keychainAvailable('${SERVICE}'), errors }));`,
        { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR },
        ['bash', WRAPPER],
      )) as { available: boolean; errors: ({ name: string; operation: string; message: string } | null)[] };
      assert.equal(out.available, false);
      assert.deepEqual(
        out.errors.map((e) => e?.operation),
        ['set', 'get', 'delete'],
      );
      for (const e of out.errors) {
        assert.equal(e!.name, 'SecretStoreError');
        assert.match(e!.message, /line "line_locked"/);
        assert.ok(!JSON.stringify(e).includes('Qv7Lm2'), `the secret leaked: ${JSON.stringify(e)}`);
      }
    },
  );
});
