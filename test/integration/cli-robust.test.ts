/** The CLI as scripts and terminals meet it: piped to head, fed hostile model names, bound to 127.0.0.2, misused. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { readRuntime } from '../../gateway/runtime.js';
import { CLI, REPO, runCli, startGateway, tempDataDir, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const run = promisify(execFile);
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

/** What a terminal would act on: C0 controls but the newline, C1 controls, bidirectional overrides. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\x1b]0;pwned\x07gpt\x1b[2J\r\u202e';

test('tollgate logs shows terminal escape codes in model names as text, never raw', async () => {
  const key = await gw.admin.key('k');
  const model = HOSTILE;
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
  const explained = await tollgate(['logs', '--explain']);
  assert.equal(explained.code, 0, explained.stderr);
  assert.ok(!RAW_CONTROL.test(explained.stdout), JSON.stringify(explained.stdout));
  assert.match(explained.stdout, /\\x1b\]0;pwned\\x07gpt/);
});

test("an upstream's model list with terminal escapes is shown as text by lines models, with and without --import --dry-run", async () => {
  const ids = [HOSTILE, 'plain-1'];
  const base = scenarioBase(mock, `models=${ids.map(encodeURIComponent).join('|')}`);
  const add = [
    'lines',
    'add',
    '--name',
    'hostile',
    '--protocol',
    'openai-chat',
    '--base-url',
    base,
    '--models',
    'gpt-4o',
  ];
  assert.equal((await tollgate(add)).code, 0);
  const listed = await tollgate(['lines', 'models', 'hostile']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(!RAW_CONTROL.test(listed.stdout), JSON.stringify(listed.stdout));
  assert.match(listed.stdout, /\\x1b\]0;pwned\\x07gpt/);
  assert.match(listed.stdout, /^plain-1$/m);
  const dry = await tollgate(['lines', 'models', 'hostile', '--import', '--free', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.ok(!RAW_CONTROL.test(dry.stdout), JSON.stringify(dry.stdout));
  const json = await tollgate(['lines', 'models', 'hostile', '--json']);
  assert.ok(!RAW_CONTROL.test(json.stdout), JSON.stringify(json.stdout));
  assert.deepEqual(JSON.parse(json.stdout), ids, '--json keeps the ids exact (as JSON escapes)');
});

test('models import --dry-run shows terminal escapes in a price file as text', async () => {
  const file = join(tempDataDir(), 'prices.json');
  // A skipped entry's reason quotes the file: a mode that is not a chat mode, a price that is not a number.
  writeFileSync(
    file,
    JSON.stringify({
      'gpt-4o': { mode: HOSTILE, litellm_provider: 'openai' },
      'gpt-4o-mini': { input_cost_per_token: '\u009b2J\u202e', litellm_provider: 'openai' },
    }),
  );
  const r = await tollgate(['models', 'import', file, '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!RAW_CONTROL.test(r.stdout), JSON.stringify(r.stdout));
  assert.match(r.stdout, /skipped gpt-4o \(entry gpt-4o\): its mode is \\x1b\]0;pwned/);
  assert.match(r.stdout, /skipped gpt-4o-mini .*\\x9b2J/);
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

test('input errors say what is wrong in one line, never "an unexpected error", without a stack trace', async () => {
  const file = join(tempDataDir(), 'not-a-dir');
  writeFileSync(file, 'x');
  const cases: [string[], RegExp][] = [
    [['doctor', '--data-dir', file], /The data dir .*not-a-dir is a file, not a directory/],
    [['serve', '--port', '0', '--data-dir', file], /The data dir .*not-a-dir is a file, not a directory/],
    [['serve', '--port', '70000', '--data-dir', tempDataDir()], /--port must be an integer from 0 to 65535/],
    [
      ['serve', '--host', 'no-such-host.invalid', '--lan', '--port', '0', '--data-dir', tempDataDir()],
      /cannot listen on no-such-host\.invalid port 0: no such address/,
    ],
    [['groups', 'add', 'g', '--multiplier', 'abc'], /--multiplier takes a number with at most 6 decimals/],
  ];
  for (const [args, expected] of cases) {
    const r = await tollgate(args, args.includes('--data-dir') ? args[args.indexOf('--data-dir') + 1] : gw.dataDir);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr.split('\n')[0]!, expected, args.join(' '));
    assert.ok(!/unexpected/.test(r.stderr), r.stderr);
    assert.ok(!/\n\s+at /.test(r.stderr), r.stderr);
    // Flags the parser refuses come with the command's usage after the one line; the rest are one line.
    if (r.stderr.startsWith('tollgate: ')) assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
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
