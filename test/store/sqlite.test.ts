/**
 * Which native binary better-sqlite3 loads: the package's own, or the one named by
 * TOLLGATE_SQLITE_BINDING (the desktop app from source sets it to a build for Electron's ABI).
 * Run in child processes, since a process loads the binary once.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO } from '../helpers/gateway.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'tollgate-sqlite-binding-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const packaged = join(
  dirname(createRequire(join(REPO, 'package.json')).resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  'better_sqlite3.node',
);

/** Opens a database through openSqlite in a fresh process; answers which better_sqlite3.node files it mapped (Linux). */
const SCRIPT = `
  import { readFileSync } from 'node:fs';
  import { openSqlite } from './gateway/store/sqlite.ts';
  const db = openSqlite(':memory:');
  const one = db.prepare('SELECT 1 AS one').get().one;
  const maps = process.platform === 'linux' ? readFileSync('/proc/self/maps', 'utf8') : '';
  const loaded = [...new Set(maps.split('\\n').map((l) => l.split(/\\s+/)[5]).filter((p) => p && p.endsWith('better_sqlite3.node')))];
  console.log(JSON.stringify({ one, loaded }));
`;

async function probe(env: NodeJS.ProcessEnv): Promise<{ one: number; loaded: string[] }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: REPO,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

test('without TOLLGATE_SQLITE_BINDING the package loads its own binary', async () => {
  const out = await probe({ TOLLGATE_SQLITE_BINDING: '' });
  assert.equal(out.one, 1);
  if (process.platform === 'linux') assert.deepEqual(out.loaded, [packaged]);
});

test('with it, the binary named there is loaded instead, and works', async () => {
  const elsewhere = join(dir, 'electron-build', 'better_sqlite3.node');
  mkdirSync(dirname(elsewhere), { recursive: true });
  copyFileSync(packaged, elsewhere);
  const out = await probe({ TOLLGATE_SQLITE_BINDING: elsewhere });
  assert.equal(out.one, 1);
  if (process.platform === 'linux') assert.deepEqual(out.loaded, [elsewhere]);
});

test('a binding that is not there fails with its path in the message', async () => {
  await assert.rejects(probe({ TOLLGATE_SQLITE_BINDING: join(dir, 'missing', 'better_sqlite3.node') }), (err: Error) =>
    err.message.includes(join(dir, 'missing')),
  );
});
