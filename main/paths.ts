import { join } from 'node:path';

/**
 * The data dir: TOLLGATE_DATA_DIR when set (as for `tollgate serve`), else Electron's userData
 * folder, which for the product name "Tollgate" is the same OS app-data folder `tollgate serve`
 * uses by default, so the app and the CLI share one gateway.
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, userData: string): string {
  return env.TOLLGATE_DATA_DIR || userData;
}

/** Files of the app, under its root (the asar archive once packaged). */
export function appFiles(appRoot: string): { preload: string; gatewayEntry: string; trayDir: string; icon: string } {
  return {
    preload: join(appRoot, 'dist', 'main', 'preload.cjs'),
    gatewayEntry: join(appRoot, 'dist', 'gateway', 'desktop-child.js'),
    trayDir: join(appRoot, 'assets', 'tray'),
    icon: join(appRoot, 'assets', 'icon.png'),
  };
}

/** Chromium's own storage (cookies, cache) in a folder of its own inside the data dir. */
export function sessionDataDir(dataDir: string): string {
  return join(dataDir, 'electron');
}

/** Where `npm start` keeps better-sqlite3 built for Electron (.ci/electron-native.ts), per Electron version and target. */
export function electronSqliteBinding(repo: string, electronVersion: string, platform: string, arch: string): string {
  return join(repo, '.electron-native', `electron-${electronVersion}-${platform}-${arch}`, 'better_sqlite3.node');
}
