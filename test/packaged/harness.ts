/**
 * What the packaged-app test (app.test.ts) needs besides Electron itself: which app to launch, the
 * temporary data dir it runs on, and the checks that it left nothing behind. All of it runs without
 * Electron and is tested in harness.test.ts; only the launch needs a real Electron binary.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { electronSqliteBinding } from '../../main/paths.js';

/** The app under test: a packaged executable, or Electron running this checkout's build. */
export type AppUnderTest =
  | { kind: 'packaged'; executable: string; args: string[]; source: string }
  | { kind: 'source'; executable: string; args: string[]; source: string };

export type Found = { app: AppUnderTest } | { skip: string } | { error: string };

/** The packaged app electron-builder leaves in release/ after `npx electron-builder --dir`. */
export function unpackedExecutable(repo: string, platform: NodeJS.Platform, arch: string): string[] {
  const release = join(repo, 'release');
  if (platform === 'darwin')
    return [
      join(release, `mac-${arch}`, 'Tollgate.app', 'Contents', 'MacOS', 'Tollgate'),
      join(release, 'mac', 'Tollgate.app', 'Contents', 'MacOS', 'Tollgate'),
    ];
  if (platform === 'win32') return [join(release, 'win-unpacked', 'Tollgate.exe')];
  return [join(release, 'linux-unpacked', 'tollgate')];
}

/** Electron's own binary in node_modules, when `npm install` downloaded it; never downloads it. */
export function devElectron(repo: string): string | undefined {
  const pkg = join(repo, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

export const SKIP_MESSAGE =
  'no Electron binary here, so the packaged app cannot be launched. To run this test: set TOLLGATE_APP_EXECUTABLE ' +
  'to an installed Tollgate (the release workflow does), or build one with "npx electron-builder --dir" ' +
  '(it appears under release/), or install Electron\'s binary ("npm install" without ELECTRON_SKIP_BINARY_DOWNLOAD) ' +
  'and run "npm start" once, which builds better-sqlite3 for it.';

/**
 * Which app to launch, in this order: TOLLGATE_APP_EXECUTABLE (an installed app; a path that does
 * not exist is an error, never a skip), an unpacked build under release/, Electron running this
 * checkout. None of them: skip, and say how to get one.
 */
export function findApp(
  env: NodeJS.ProcessEnv,
  repo: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  electronVersion?: string,
): Found {
  const given = env.TOLLGATE_APP_EXECUTABLE;
  if (given) {
    if (!existsSync(given)) return { error: `TOLLGATE_APP_EXECUTABLE is ${given}, which does not exist` };
    return { app: { kind: 'packaged', executable: given, args: [], source: 'TOLLGATE_APP_EXECUTABLE' } };
  }
  for (const candidate of unpackedExecutable(repo, platform, arch))
    if (existsSync(candidate))
      return {
        app: { kind: 'packaged', executable: candidate, args: [], source: 'release/ (electron-builder --dir)' },
      };
  const electron = devElectron(repo);
  if (electron) {
    const version =
      electronVersion ?? JSON.parse(readFileSync(join(repo, 'node_modules/electron/package.json'), 'utf8')).version;
    if (!existsSync(join(repo, 'dist', 'main', 'index.js')))
      return { skip: 'Electron is installed but dist/ is not built: run "npm run build" first.' };
    if (!existsSync(electronSqliteBinding(repo, version, platform, arch)))
      return { skip: 'Electron is installed but better-sqlite3 is not built for it yet: run "npm start" once.' };
    return { app: { kind: 'source', executable: electron, args: [repo], source: 'this checkout under Electron' } };
  }
  return { skip: SKIP_MESSAGE };
}

/**
 * A fresh data dir for the app: the gateway's port setting 0 (4141 need not be free; config.json,
 * which the app's gateway and `tollgate serve` read), and a HOME of its own for tools' files.
 */
export function prepareDataDir(root = tmpdir()): { dataDir: string; home: string } {
  const dataDir = mkdtempSync(join(root, 'tollgate-packaged-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ version: 1, settings: { port: 0 } }) + '\n');
  const home = join(dataDir, 'home');
  mkdirSync(home);
  return { dataDir, home };
}

/** The app's environment: this data dir, this HOME, nothing that would make Electron a plain Node. */
export function appEnv(base: NodeJS.ProcessEnv, dataDir: string, home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  delete env.ELECTRON_RUN_AS_NODE;
  delete env.NODE_OPTIONS;
  delete env.TOLLGATE_APP_EXECUTABLE;
  env.TOLLGATE_DATA_DIR = dataDir;
  env.HOME = home;
  env.USERPROFILE = home;
  env.XDG_CONFIG_HOME = join(home, '.config');
  return env;
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The app's log (main.log beside a TOLLGATE_DATA_DIR data dir, app-log.ts), or '' before it exists. */
export function appLogText(dataDir: string): string {
  const path = join(dataDir, 'logs', 'main.log');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

/** The folder to keep what a failed run leaves for a person to read. */
export function artifactsDir(repo: string): string {
  const dir = join(repo, 'test-artifacts', 'packaged');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The .app bundle of a macOS executable path (…/Tollgate.app/Contents/MacOS/Tollgate), else the path itself. */
export function bundleOf(executable: string): string {
  const i = executable.indexOf('.app/');
  return i >= 0 ? executable.slice(0, i + 4) : executable;
}
