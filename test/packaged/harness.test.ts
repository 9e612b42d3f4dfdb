/**
 * The packaged-app test's own parts, checked without Electron: which app it launches (or why it
 * skips), the data dir and environment it gives the app, and the checks it makes afterwards.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { electronSqliteBinding } from '../../main/paths.js';
import {
  appEnv,
  appLogText,
  bundleOf,
  devElectron,
  findApp,
  prepareDataDir,
  processAlive,
  SKIP_MESSAGE,
  unpackedExecutable,
} from './harness.js';

const root = mkdtempSync(join(tmpdir(), 'tollgate-harness-'));
after(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, text = ''): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

test('an installed app named by TOLLGATE_APP_EXECUTABLE comes first; a name that does not exist fails, never skips', () => {
  const repo = join(root, 'r1');
  const exe = file(join(root, 'opt', 'Tollgate', 'tollgate'));
  assert.deepEqual(findApp({ TOLLGATE_APP_EXECUTABLE: exe }, repo, 'linux'), {
    app: { kind: 'packaged', executable: exe, args: [], source: 'TOLLGATE_APP_EXECUTABLE' },
  });
  const missing = findApp({ TOLLGATE_APP_EXECUTABLE: join(root, 'nowhere') }, repo, 'linux');
  assert.ok('error' in missing && /does not exist/.test(missing.error));
});

test('then an unpacked build under release/, per platform', () => {
  assert.deepEqual(unpackedExecutable('/r', 'win32', 'x64'), [join('/r', 'release', 'win-unpacked', 'Tollgate.exe')]);
  assert.deepEqual(unpackedExecutable('/r', 'darwin', 'arm64'), [
    join('/r', 'release', 'mac-arm64', 'Tollgate.app', 'Contents', 'MacOS', 'Tollgate'),
    join('/r', 'release', 'mac', 'Tollgate.app', 'Contents', 'MacOS', 'Tollgate'),
  ]);
  const repo = join(root, 'r2');
  const exe = file(join(repo, 'release', 'linux-unpacked', 'tollgate'));
  const found = findApp({}, repo, 'linux', 'x64');
  assert.ok('app' in found && found.app.kind === 'packaged' && found.app.executable === exe);
});

test("then Electron's own binary running this checkout, once dist/ and the Electron build of better-sqlite3 exist", () => {
  const repo = join(root, 'r3');
  assert.deepEqual(findApp({}, repo, 'linux', 'x64'), { skip: SKIP_MESSAGE }, 'nothing at all: skip and say how');
  file(join(repo, 'node_modules', 'electron', 'path.txt'), 'electron');
  assert.equal(devElectron(repo), undefined, 'path.txt without the downloaded binary is no Electron');
  const electron = file(join(repo, 'node_modules', 'electron', 'dist', 'electron'));
  chmodSync(electron, 0o755);
  assert.equal(devElectron(repo), electron);
  const noDist = findApp({}, repo, 'linux', 'x64', '45.4.1');
  assert.ok('skip' in noDist && /npm run build/.test(noDist.skip));
  file(join(repo, 'dist', 'main', 'index.js'));
  const noBinding = findApp({}, repo, 'linux', 'x64', '45.4.1');
  assert.ok('skip' in noBinding && /npm start/.test(noBinding.skip));
  file(electronSqliteBinding(repo, '45.4.1', 'linux', 'x64'));
  assert.deepEqual(findApp({}, repo, 'linux', 'x64', '45.4.1'), {
    app: { kind: 'source', executable: electron, args: [repo], source: 'this checkout under Electron' },
  });
});

test('the skip message names the three ways to get an app to run', () => {
  for (const way of ['TOLLGATE_APP_EXECUTABLE', 'electron-builder --dir', 'npm start'])
    assert.ok(SKIP_MESSAGE.includes(way), way);
});

test('the data dir listens on port 0, and the environment points the app at it and nowhere else', () => {
  const { dataDir, home } = prepareDataDir(root);
  assert.equal(
    (JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as { settings: { port: number } }).settings.port,
    0,
    "the gateway's port setting",
  );
  const env = appEnv(
    {
      PATH: '/usr/bin',
      NODE_OPTIONS: '--inspect',
      ELECTRON_RUN_AS_NODE: '1',
      TOLLGATE_APP_EXECUTABLE: '/x',
      KEEP: 'y',
    },
    dataDir,
    home,
  );
  assert.deepEqual(env, {
    PATH: '/usr/bin',
    KEEP: 'y',
    TOLLGATE_DATA_DIR: dataDir,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
  });
});

test('a process that exited is seen as gone', async () => {
  assert.equal(processAlive(process.pid), true);
  const child = spawn(process.execPath, ['-e', '0']);
  const pid = child.pid!;
  await new Promise((r) => child.once('exit', r));
  assert.equal(processAlive(pid), false);
});

test('the app log is read from beside the data dir; a macOS executable maps to its bundle', () => {
  const { dataDir } = prepareDataDir(root);
  assert.equal(appLogText(dataDir), '');
  file(join(dataDir, 'logs', 'main.log'), 'tray created\n');
  assert.equal(appLogText(dataDir), 'tray created\n');
  assert.equal(bundleOf('/Applications/Tollgate.app/Contents/MacOS/Tollgate'), '/Applications/Tollgate.app');
  assert.equal(bundleOf('/opt/Tollgate/tollgate'), '/opt/Tollgate/tollgate');
  assert.equal(readFileSync(join(dataDir, 'config.json'), 'utf8'), '{"version":1,"settings":{"port":0}}\n');
});
