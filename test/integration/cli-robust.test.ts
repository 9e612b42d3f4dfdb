/** The CLI as scripts and terminals meet it: piped to head, fed hostile model names, bound to 127.0.0.2, misused. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { readRuntime } from '../../gateway/runtime.js';
import { CLI, REPO, runCli, startGateway, tempDataDir, waitFor, type TestGateway } from '../helpers/gateway.js';

const run = promisify(execFile);
let gw: TestGateway;

function tollgate(args: string[], dataDir = gw.dataDir): ReturnType<typeof runCli> {
  return runCli(args, dataDir);
}

before(async () => {
  gw = await startGateway();
});

after(async () => {
  await gw.close();
});

test('tollgate logs shows terminal escape codes in model names as text, never raw', async () => {
  const key = await gw.admin.key('k');
  const model = '\x1b]0;pwned\x07gpt\x1b[2J\r\u202e';
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(r.status, 404);
  const out = await tollgate(['logs']);
  assert.equal(out.code, 0, out.stderr);
  assert.ok(!/[\x00-\x09\x0b-\x1f\x7f\u202e]/.test(out.stdout), JSON.stringify(out.stdout));
  assert.match(out.stdout, /\\x1b\]0;pwned\\x07gpt\\x1b\[2J\\x0d\\u202e/);
});

test('piped to a reader that stops early, the CLI exits quietly (no EPIPE crash)', async () => {
  // `true` exits at once, long before the CLI writes: every write meets a closed pipe.
  const { stdout, stderr } = await run(
    'bash',
    ['-c', `${CLI.map((a) => `'${a}'`).join(' ')} models list | true; echo "status \${PIPESTATUS[0]}"`],
    {
      cwd: REPO,
      env: { ...process.env, TOLLGATE_DATA_DIR: gw.dataDir },
    },
  );
  assert.match(stdout, /status 0/);
  assert.equal(stderr, '');
});

test('an unexpected error is one line, without a stack trace', async () => {
  const file = join(tempDataDir(), 'not-a-dir');
  writeFileSync(file, 'x');
  const r = await tollgate(['doctor'], file);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^tollgate: /);
  assert.ok(!/\n\s+at /.test(r.stderr), r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});

test('serve refuses a non-loopback --host unless --lan is given', async () => {
  const r = await tollgate(['serve', '--host', '0.0.0.0', '--port', '0'], tempDataDir());
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Add --lan/);
});

test('a gateway started with --host 127.0.0.2 is reachable by every CLI command', async () => {
  const dir = tempDataDir();
  const child = spawn(CLI[0]!, [...CLI.slice(1), 'serve', '--host', '127.0.0.2', '--port', '0', '--data-dir', dir], {
    cwd: REPO,
    stdio: 'ignore',
  });
  try {
    await waitFor(() => readRuntime(dir)?.pid === child.pid, 'the gateway on 127.0.0.2', 20_000);
    assert.match(readRuntime(dir)!.url, /^http:\/\/127\.0\.0\.2:/);
    for (const args of [['wallet', 'topup', '1'], ['keys', 'create', '--name', 'a'], ['logs']]) {
      const r = await tollgate(args, dir);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
  } finally {
    child.kill('SIGTERM');
  }
});

test('the admin token never leaves this machine: a runtime file naming a LAN address is refused before any request', async () => {
  const runtime = readRuntime(gw.dataDir)!;
  const file = join(gw.dataDir, 'gateway.json');
  // The admin API answers only on loopback, so a gateway bound to a LAN address alone cannot be managed from here.
  writeFileSync(file, JSON.stringify({ ...runtime, url: 'http://192.168.1.5:4141' }));
  try {
    const r = await tollgate(['keys', 'list']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /listens at http:\/\/192\.168\.1\.5:4141, not on a loopback address/);
  } finally {
    writeFileSync(file, JSON.stringify(runtime));
  }
});
