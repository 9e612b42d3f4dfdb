/**
 * Electron's fuses in a built app, read and (for the test run only) changed with @electron/fuses,
 * the library electron-builder flips them with. Each fuse is one byte after a sentinel in the
 * Electron binary (the Electron Framework on macOS), so this runs on a stand-in file as well.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { bundleOf } from './harness.js';

const require = createRequire(import.meta.url);
const fuses = require('@electron/fuses') as {
  getCurrentFuseWire(path: string): Promise<Record<string, unknown>>;
  flipFuses(path: string, config: Record<string, unknown>): Promise<number>;
  FuseVersion: { V1: string };
  FuseV1Options: Record<string, number>;
};

/** electron-builder.yml's `electronFuses` keys → @electron/fuses' fuse index. */
export const FUSE_INDEX: Record<string, number> = {
  runAsNode: fuses.FuseV1Options.RunAsNode!,
  enableCookieEncryption: fuses.FuseV1Options.EnableCookieEncryption!,
  enableNodeOptionsEnvironmentVariable: fuses.FuseV1Options.EnableNodeOptionsEnvironmentVariable!,
  enableNodeCliInspectArguments: fuses.FuseV1Options.EnableNodeCliInspectArguments!,
  enableEmbeddedAsarIntegrityValidation: fuses.FuseV1Options.EnableEmbeddedAsarIntegrityValidation!,
  onlyLoadAppFromAsar: fuses.FuseV1Options.OnlyLoadAppFromAsar!,
  loadBrowserProcessSpecificV8Snapshot: fuses.FuseV1Options.LoadBrowserProcessSpecificV8Snapshot!,
  grantFileProtocolExtraPrivileges: fuses.FuseV1Options.GrantFileProtocolExtraPrivileges!,
};

/** A fuse's byte: '0' off, '1' on, 'r' removed from this Electron. */
const STATE: Record<number, 'off' | 'on' | 'removed'> = { 48: 'off', 49: 'on', 114: 'removed' };

export type FuseWire = Record<string, 'off' | 'on' | 'removed' | 'unknown'>;

/** The fuses electron-builder.yml asks for, by name. */
export function expectedFuses(electronFuses: Record<string, unknown>): FuseWire {
  const out: FuseWire = {};
  for (const [name, value] of Object.entries(electronFuses)) {
    if (!(name in FUSE_INDEX)) throw new Error(`electron-builder.yml names a fuse this test does not know: ${name}`);
    if (typeof value === 'boolean') out[name] = value ? 'on' : 'off';
  }
  return out;
}

/** The fuses of a built app (the executable, or on macOS anything inside its .app bundle), by name. */
export async function readFuses(executable: string): Promise<FuseWire> {
  const wire = await fuses.getCurrentFuseWire(bundleOf(executable));
  const out: FuseWire = {};
  for (const [name, index] of Object.entries(FUSE_INDEX)) {
    const byte = wire[String(index)];
    if (typeof byte === 'number') out[name] = STATE[byte] ?? 'unknown';
  }
  return out;
}

/**
 * Turns on the one fuse Playwright needs (Node's --inspect, through which it drives Electron's main
 * process) and nothing else. A macOS bundle whose framework changed no longer matches its
 * signature, so it is signed again, ad hoc, without the hardened runtime (its library validation
 * would refuse an ad-hoc signed framework).
 */
export async function allowInspect(executable: string, platform: NodeJS.Platform = process.platform): Promise<void> {
  await fuses.flipFuses(bundleOf(executable), {
    version: fuses.FuseVersion.V1,
    [fuses.FuseV1Options.EnableNodeCliInspectArguments!]: true,
  });
  if (platform === 'darwin' && executable.includes('.app/')) {
    const r = spawnSync('codesign', ['--force', '--deep', '--sign', '-', bundleOf(executable)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`codesign failed: ${r.stderr}`);
  }
}
