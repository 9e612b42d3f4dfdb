/**
 * `npm start` runs the desktop app from source in Electron, whose Node has another ABI than the
 * Node that `npm install` built better-sqlite3 for. Rebuilding the package in place would break
 * the CLI and the test suite (they run on Node), and rebuilding it back and forth would race with
 * them. So this builds a second copy for Electron, in `.electron-native/` (ignored by git), once
 * per Electron version, platform, architecture and better-sqlite3 version; the app from source
 * points better-sqlite3 at it (TOLLGATE_SQLITE_BINDING, gateway/store/sqlite.ts). Packaged apps
 * need none of this: electron-builder rebuilds their copy while packaging.
 *
 * The build is @electron/rebuild's (a prebuilt binary for Electron when better-sqlite3 publishes
 * one, else node-gyp against Electron's headers), in a scratch project holding a copy of the
 * package, so node_modules is never touched.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronSqliteBinding } from '../main/paths.js';

export interface NativeTarget {
  repo: string;
  electronVersion: string;
  platform: string;
  arch: string;
}

export interface RebuildRequest {
  buildPath: string;
  electronVersion: string;
  platform: NodeJS.Platform;
  arch: string;
  onlyModules: string[];
  force: boolean;
}

/** What was built, beside the binary: a different stamp means build again. */
export function stamp(t: NativeTarget, betterSqliteVersion: string): string {
  return JSON.stringify({
    betterSqlite3: betterSqliteVersion,
    electron: t.electronVersion,
    platform: t.platform,
    arch: t.arch,
  });
}

function packageVersion(dir: string): string {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

export function upToDate(t: NativeTarget): boolean {
  const binding = electronSqliteBinding(t.repo, t.electronVersion, t.platform, t.arch);
  const stampFile = `${binding}.json`;
  if (!existsSync(binding) || !existsSync(stampFile)) return false;
  const version = packageVersion(join(t.repo, 'node_modules', 'better-sqlite3'));
  return readFileSync(stampFile, 'utf8') === stamp(t, version);
}

/** Builds better-sqlite3 for Electron unless an up-to-date build is there; returns the binary's path. */
export async function ensureElectronSqlite(
  t: NativeTarget,
  rebuild: (r: RebuildRequest) => Promise<void>,
  log: (m: string) => void = () => undefined,
): Promise<{ binding: string; built: boolean }> {
  const binding = electronSqliteBinding(t.repo, t.electronVersion, t.platform, t.arch);
  if (upToDate(t)) return { binding, built: false };
  const source = join(t.repo, 'node_modules', 'better-sqlite3');
  const version = packageVersion(source);
  // Inside the repository, so @electron/rebuild finds prebuild-install in its node_modules.
  const scratch = join(t.repo, '.electron-native', 'scratch');
  rmSync(scratch, { recursive: true, force: true });
  const copy = join(scratch, 'node_modules', 'better-sqlite3');
  try {
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'tollgate-electron-native', private: true, dependencies: { 'better-sqlite3': version } }),
    );
    // The sources without npm's Node build, which must not be mistaken for the Electron one.
    cpSync(source, copy, { recursive: true, filter: (src) => src !== join(source, 'build') });
    log(`building better-sqlite3 ${version} for Electron ${t.electronVersion} (${t.platform}-${t.arch}), once`);
    await rebuild({
      buildPath: scratch,
      electronVersion: t.electronVersion,
      platform: t.platform as NodeJS.Platform,
      arch: t.arch,
      onlyModules: ['better-sqlite3'],
      force: true,
    });
    const built = join(copy, 'build', 'Release', 'better_sqlite3.node');
    if (!existsSync(built)) throw new Error(`the rebuild left no ${built}`);
    mkdirSync(dirname(binding), { recursive: true });
    cpSync(built, binding);
    writeFileSync(`${binding}.json`, stamp(t, version));
    return { binding, built: true };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const electronVersion = packageVersion(join(repo, 'node_modules', 'electron'));
  const target = { repo, electronVersion, platform: process.platform, arch: process.arch };
  const { rebuild } = (await import('@electron/rebuild')) as unknown as {
    rebuild(r: RebuildRequest): Promise<void>;
  };
  const out = await ensureElectronSqlite(
    target,
    (r) => rebuild(r),
    (m) => console.log(`[tollgate] ${m}`),
  );
  if (out.built) console.log(`[tollgate] better-sqlite3 for Electron: ${out.binding}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(
      `[tollgate] could not build better-sqlite3 for Electron: ${(err as Error).message}\n` +
        "It needs either network access to better-sqlite3's prebuilt binaries or a C++ toolchain with access to " +
        'Electron\'s headers (docs/desktop.md, "Running from source").',
    );
    process.exitCode = 1;
  });
}
