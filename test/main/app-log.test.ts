import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AppLog, LOG_FILE, logDir, MAX_LINE_CHARS, OLD_LOG_FILE, sanitiseLogLine } from '../../main/app-log.js';

const root = mkdtempSync(join(tmpdir(), 'tollgate-applog-'));
after(() => rmSync(root, { recursive: true, force: true }));
const fixed = () => new Date('2026-03-01T12:00:00.000Z');

test('lines are timestamped and appended to main.log in the log folder, created private', () => {
  const dir = join(root, 'a', 'logs');
  const log = new AppLog(dir, undefined, fixed);
  log.write('gateway running at http://127.0.0.1:4141');
  log.write('[gateway] Error: SQLITE_FULL');
  log.close();
  new AppLog(dir, undefined, fixed).write('after a restart of the app');
  assert.equal(
    readFileSync(join(dir, LOG_FILE), 'utf8'),
    [
      '2026-03-01T12:00:00.000Z gateway running at http://127.0.0.1:4141',
      '2026-03-01T12:00:00.000Z [gateway] Error: SQLITE_FULL',
      '2026-03-01T12:00:00.000Z after a restart of the app',
      '',
    ].join('\n'),
  );
});

test('no secret is written: sk- keys, admin tokens, auth headers and one-time login codes are masked', () => {
  const key = 'sk-' + 'A1b2C3d4'.repeat(6);
  const token = 'tga_' + 'x9Y8z7W6'.repeat(4);
  const lines = [
    `blocked navigation of the console to http://127.0.0.1:4141/login?code=Zq81kd02Lm#/connect`,
    `refused IPC tollgate:copy-text from http://127.0.0.1:4141/x?token=${token.slice(4)}`,
    `loaded http://127.0.0.1:4141/?console=Pg7tOkEnPg7tOkEn#/connect`,
    `[gateway] upstream said: invalid key ${key}`,
    `[gateway] request headers {"authorization":"Bearer ${token}","x-api-key":"${key}"}`,
  ];
  for (const l of lines) {
    const out = sanitiseLogLine(l);
    for (const secret of [key, key.slice(3), token, token.slice(4), 'Zq81kd02Lm', 'Pg7tOkEn'])
      assert.ok(!out.includes(secret), out);
  }
  assert.equal(
    sanitiseLogLine(lines[0]!),
    'blocked navigation of the console to http://127.0.0.1:4141/login?code=[redacted]#/connect',
  );
});

test('one line stays one line; a runaway line is cut', () => {
  assert.equal(sanitiseLogLine('a\nb\r\nc\u0007'), 'a ⏎ b ⏎ c�');
  const long = sanitiseLogLine('x'.repeat(MAX_LINE_CHARS * 3));
  assert.ok(long.length < MAX_LINE_CHARS + 40);
  assert.match(long, /… \(12000 characters\)$/);
});

test('past its cap the file is renamed to main.old.log and a new one begins', () => {
  const dir = join(root, 'rotate');
  const log = new AppLog(dir, 200, fixed);
  for (let i = 0; i < 6; i++) log.write(`line ${i} ${'.'.repeat(40)}`);
  log.close();
  const current = readFileSync(join(dir, LOG_FILE), 'utf8');
  const old = readFileSync(join(dir, OLD_LOG_FILE), 'utf8');
  assert.ok(Buffer.byteLength(current) <= 200 && Buffer.byteLength(old) <= 200);
  assert.match(current, /line 5/);
  assert.doesNotMatch(current + old, /line 0/, 'only two files are kept');
});

test('a log folder that cannot be written does not stop the app', () => {
  const blocked = join(root, 'blocked');
  writeFileSync(blocked, 'a file where the folder should be');
  const log = new AppLog(join(blocked, 'logs'));
  assert.doesNotThrow(() => log.write('one'));
  assert.doesNotThrow(() => log.write('two'));
});

test(
  'a read-only log file does not stop the app either',
  { skip: process.getuid?.() === 0 && 'root may write anyway' },
  () => {
    const ro = join(root, 'ro');
    const ok = new AppLog(ro);
    ok.write('x');
    ok.close();
    chmodSync(ro, 0o500);
    chmodSync(join(ro, LOG_FILE), 0o400);
    try {
      assert.doesNotThrow(() => new AppLog(ro).write('y'));
    } finally {
      chmodSync(ro, 0o700);
    }
  },
);

test('the log folder is the OS one, except beside a data dir chosen with TOLLGATE_DATA_DIR', () => {
  assert.equal(
    logDir({}, '/Users/me/Library/Logs/Tollgate', '/Users/me/Library/Application Support/Tollgate'),
    '/Users/me/Library/Logs/Tollgate',
  );
  assert.equal(logDir({ TOLLGATE_DATA_DIR: '/tmp/t' }, '/os/logs', '/tmp/t'), join('/tmp/t', 'logs'));
  assert.equal(existsSync(join(root, 'never')), false);
});
