/**
 * What the desktop app (main/) takes from the Node side of the gateway, in one module: main/ may
 * import this file and gateway/contract/, nothing else (test/architecture.layers.json). It finds a
 * running gateway through the runtime file and the admin token, and starts one by spawning
 * desktop-child.ts by its path (no import), talking to it with the messages below.
 */
export { readAdminToken } from './admin/token.js';
export { readRuntime } from './runtime.js';
export { dataDirInUse } from './store/data-dir-lock.js';
export { SQLITE_BINDING_ENV } from './store/sqlite.js';
export { maskSecrets } from './upstream/errors.js';
import { isLoopbackHost } from './contract/loopback.js';
import { DEFAULT_SETTINGS, type Settings } from './store/settings.js';

/** Messages between main (main/gateway-host.ts) and the gateway process (desktop-child.ts). */
export type FromGateway = { type: 'ready'; url: string; token: string } | { type: 'failed'; message: string };
export type ToGateway = { type: 'stop' };

/**
 * What older versions of the desktop app kept in its own desktop.json (its port and low-balance
 * threshold) before the gateway's settings owned them. Main passes them to its gateway process
 * while desktop.json still holds them, the process moves them into the settings once
 * (settingsToCarry), and main then drops them from desktop.json.
 */
export interface CarriedSettings {
  port?: number;
  lowBalanceMicro?: number;
}

/** Arguments of the gateway process: where the data lives, and the old desktop settings to carry over. */
export function gatewayArgs(dataDir: string, carried: CarriedSettings = {}): string[] {
  const out = ['--data-dir', dataDir];
  if (carried.port !== undefined) out.push('--carry-port', String(carried.port));
  if (carried.lowBalanceMicro !== undefined) out.push('--carry-low-balance', String(carried.lowBalanceMicro));
  return out;
}

export function parseGatewayArgs(argv: readonly string[]): { dataDir: string; carried: CarriedSettings } {
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const int = (flag: string, max: number): number | undefined => {
    const text = at(flag);
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`bad gateway arguments: ${argv.join(' ')}`);
    return n;
  };
  const dataDir = at('--data-dir');
  if (!dataDir) throw new Error(`bad gateway arguments: ${argv.join(' ')}`);
  const carried: CarriedSettings = {};
  const port = int('--carry-port', 65535);
  const low = int('--carry-low-balance', Number.MAX_SAFE_INTEGER);
  if (port !== undefined) carried.port = port;
  if (low !== undefined) carried.lowBalanceMicro = low;
  return { dataDir, carried };
}

/**
 * Which carried values become settings. A value the config already sets itself stays as the config
 * has it (the gateway's settings are the truth, and `tollgate serve` may have set them); a value
 * equal to the default is not written (config.json keeps only what differs). `notes` say what
 * happened, for the app log.
 */
export function settingsToCarry(
  stored: Partial<Settings> | undefined,
  carried: CarriedSettings,
): { change: Partial<Settings>; notes: string[] } {
  const change: Partial<Settings> = {};
  const notes: string[] = [];
  for (const field of ['port', 'lowBalanceMicro'] as const) {
    const value = carried[field];
    if (value === undefined || value === DEFAULT_SETTINGS[field]) continue;
    const own = stored?.[field];
    if (own !== undefined && own !== value) {
      notes.push(`desktop.json's ${field} ${value} is not carried over: the gateway's settings say ${own}`);
      continue;
    }
    if (own === value) continue;
    change[field] = value;
    notes.push(`desktop.json's ${field} ${value} is now the gateway's setting`);
  }
  return { change, notes };
}

/**
 * Where the app's gateway binds. The console window and main reach the admin API on loopback only
 * (docs/admin-api.md), so a host setting naming one other address (a LAN IP) would leave the app
 * without its console: the process binds 127.0.0.1 then and says why. Loopback and the wildcard
 * addresses (which include loopback) are bound as set, as `tollgate serve` does.
 */
export function appBindHost(host: string): { host: string; note?: string } {
  if (isLoopbackHost(host) || host === '0.0.0.0' || host === '::' || host === '[::]') return { host };
  return {
    host: '127.0.0.1',
    note:
      `the bind address ${host} is not reachable from this machine's loopback, where the app's console runs: ` +
      'bound 127.0.0.1 instead (0.0.0.0 in Settings serves the network and this machine)',
  };
}

/** A start-up failure in words for the tray (a listen error names its port). */
export function describeStartError(err: unknown): string {
  const { code, port } = err as { code?: string; port?: number };
  const which = port === undefined ? 'the port' : `port ${port}`;
  if (code === 'EADDRINUSE')
    return `${which} is in use by another program (Settings in the console, or config.json, move it)`;
  if (code === 'EACCES') return `not allowed to listen on ${which}`;
  const message = (err as Error).message ?? '';
  // A native module built for another Node ABI (from source: better-sqlite3 built for Node, not Electron).
  if (/NODE_MODULE_VERSION/.test(message))
    return 'a native module was built for another runtime (from source, run "npm start": it builds better-sqlite3 for Electron)';
  return (err as Error).message ?? String(err);
}
