/**
 * `npm start`'s second copy of better-sqlite3 for Electron (.ci/electron-native.ts), with the
 * rebuild itself stood in for (it needs Electron's headers or prebuilt binaries from the network):
 * what the rebuild is given, where the result goes, that node_modules is left alone, and when it
 * is built again.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { electronSqliteBinding } from '../../main/paths.js';
import { ensureElectronSqlite, upToDate, type RebuildRequest } from '../../.ci/electron-native.js';

const root = mkdtempSync(join(tmpdir(), 'tollgate-electron-native-'));
after(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function fakeRepo(name: string, version = '12.11.1'): string {
  const repo = join(root, name);
  const pkg = join(repo, 'node_modules', 'better-sqlite3');
  file(join(pkg, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version }));
  file(join(pkg, 'src', 'better_sqlite3.cpp'), '// sources');
  file(join(pkg, 'lib', 'database.js'), '// js');
  file(join(pkg, 'build', 'Release', 'better_sqlite3.node'), 'NODE ABI BUILD');
  return repo;
}

/** A rebuild that checks what it is given and leaves an "Electron" binary where node-gyp would. */
function standIn(seen: RebuildRequest[]) {
  return async (r: RebuildRequest): Promise<void> => {
    seen.push(r);
    const copy = join(r.buildPath, 'node_modules', 'better-sqlite3');
    assert.ok(existsSync(join(copy, 'src', 'better_sqlite3.cpp')), 'the sources are copied');
    assert.ok(!existsSync(join(copy, 'build')), "npm's Node build is left behind");
    assert.deepEqual(JSON.parse(readFileSync(join(r.buildPath, 'package.json'), 'utf8')).dependencies, {
      'better-sqlite3': JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')).version,
    });
    file(join(copy, 'build', 'Release', 'better_sqlite3.node'), `ELECTRON ${r.electronVersion} BUILD`);
  };
}

test('builds a copy for Electron beside node_modules, once, and leaves the Node build alone', async () => {
  const repo = fakeRepo('a');
  const t = { repo, electronVersion: '45.4.1', platform: 'linux', arch: 'x64' };
  const seen: RebuildRequest[] = [];
  const first = await ensureElectronSqlite(t, standIn(seen));
  assert.deepEqual(first, { binding: electronSqliteBinding(repo, '45.4.1', 'linux', 'x64'), built: true });
  assert.equal(readFileSync(first.binding, 'utf8'), 'ELECTRON 45.4.1 BUILD');
  assert.equal(
    readFileSync(join(repo, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), 'utf8'),
    'NODE ABI BUILD',
    'the tests and the CLI keep theirs',
  );
  assert.deepEqual(
    seen.map((r) => ({ ...r, buildPath: undefined })),
    [
      {
        buildPath: undefined,
        electronVersion: '45.4.1',
        platform: 'linux',
        arch: 'x64',
        onlyModules: ['better-sqlite3'],
        force: true,
      },
    ],
  );
  assert.ok(seen[0]!.buildPath.startsWith(join(repo, '.electron-native')), 'built inside the repository');
  assert.deepEqual(
    readdirSync(join(repo, '.electron-native')),
    ['electron-45.4.1-linux-x64'],
    'the scratch copy is gone',
  );
  assert.equal(upToDate(t), true);
  assert.deepEqual(await ensureElectronSqlite(t, standIn(seen)), { binding: first.binding, built: false });
  assert.equal(seen.length, 1, 'not built again');
});

test('a new Electron or a new better-sqlite3 builds again', async () => {
  const repo = fakeRepo('b');
  const seen: RebuildRequest[] = [];
  await ensureElectronSqlite({ repo, electronVersion: '45.4.1', platform: 'linux', arch: 'x64' }, standIn(seen));
  await ensureElectronSqlite({ repo, electronVersion: '46.0.0', platform: 'linux', arch: 'x64' }, standIn(seen));
  assert.equal(seen.length, 2);
  file(join(repo, 'node_modules', 'better-sqlite3', 'package.json'), JSON.stringify({ version: '12.12.0' }));
  assert.equal(upToDate({ repo, electronVersion: '46.0.0', platform: 'linux', arch: 'x64' }), false);
  await ensureElectronSqlite({ repo, electronVersion: '46.0.0', platform: 'linux', arch: 'x64' }, standIn(seen));
  assert.equal(seen.length, 3);
});

test('a failed rebuild leaves no binary and no scratch copy behind', async () => {
  const repo = fakeRepo('c');
  const t = { repo, electronVersion: '45.4.1', platform: 'linux', arch: 'x64' };
  await assert.rejects(
    ensureElectronSqlite(t, async () => {
      throw new Error('getaddrinfo ENOTFOUND www.electronjs.org');
    }),
    /ENOTFOUND/,
  );
  assert.equal(existsSync(electronSqliteBinding(repo, '45.4.1', 'linux', 'x64')), false);
  assert.equal(existsSync(join(repo, '.electron-native', 'scratch')), false);
  await assert.rejects(
    ensureElectronSqlite(t, async () => undefined),
    /left no .*better_sqlite3\.node/,
  );
});
