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

/** Messages between main (main/gateway-host.ts) and the gateway process (desktop-child.ts). */
export type FromGateway = { type: 'ready'; url: string; token: string } | { type: 'failed'; message: string };
export type ToGateway = { type: 'stop' };

/** Arguments of the gateway process: where the data lives and which port to listen on. */
export function gatewayArgs(dataDir: string, port: number): string[] {
  return ['--data-dir', dataDir, '--port', String(port)];
}

export function parseGatewayArgs(argv: readonly string[]): { dataDir: string; port: number } {
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dataDir = at('--data-dir');
  const port = Number(at('--port'));
  if (!dataDir || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`bad gateway arguments: ${argv.join(' ')}`);
  return { dataDir, port };
}

/** A start-up failure in words for the tray. */
export function describeStartError(err: unknown, port: number): string {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE') return `port ${port} is in use by another program`;
  if (code === 'EACCES') return `not allowed to listen on port ${port}`;
  const message = (err as Error).message ?? '';
  // A native module built for another Node ABI (from source: better-sqlite3 built for Node, not Electron).
  if (/NODE_MODULE_VERSION/.test(message))
    return 'a native module was built for another runtime (from source, run "npm start": it builds better-sqlite3 for Electron)';
  return (err as Error).message ?? String(err);
}
