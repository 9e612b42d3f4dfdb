import type { FastifyInstance } from 'fastify';
import { ConsoleSessions } from './admin/session.js';
import { loadOrCreateAdminToken } from './admin/token.js';
import { removeRuntime, writeRuntime } from './runtime.js';
import type { Where } from './connect/index.js';
import { buildServer } from './server.js';
import { VERSION } from './version.js';
import { openGateway, type Gateway } from './compose/gateway.js';
import type { SecretStore } from './store/secrets.js';

export interface ServeOptions {
  dataDir: string;
  /** Where upstream keys live; the OS keychain unless a test says otherwise. */
  secrets?: SecretStore;
  host: string;
  port: number;
  /** The home and environment whose coding tools `tollgate connect` edits; this process's unless a test says otherwise. */
  toolsHome?: Where;
  logger?: boolean;
}

export interface Running {
  app: FastifyInstance;
  gateway: Gateway;
  url: string;
  adminToken: string;
  /** A fresh one-time URL that logs a browser into the console (for the banner and tests). */
  loginUrl(): string;
  close(): Promise<void>;
}

export { VERSION };

/** Opens the data dir, starts the gateway and records where it listens. */
export async function serve(opts: ServeOptions): Promise<Running> {
  const gateway = await openGateway(opts.dataDir, opts.secrets);
  // Requests a stopped gateway left unsettled become `interrupted` rows before any new one is admitted (store/ledger.ts).
  const interrupted = gateway.ledger.closeInterrupted();
  if (interrupted > 0) process.stderr.write(`tollgate: ${interrupted} requests were cut off when the gateway last stopped; logged as interrupted, nothing charged.\n`);
  const adminToken = loadOrCreateAdminToken(opts.dataDir);
  let url = '';
  const sessions = new ConsoleSessions();
  const app = await buildServer({
    gateway,
    adminToken,
    sessions,
    logger: opts.logger ?? false,
    toolsHome: opts.toolsHome,
    status: () => ({ version: VERSION, dataDir: opts.dataDir, url }),
  });
  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    await gateway.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  writeRuntime(opts.dataDir, { url, pid: process.pid, startedAt: new Date().toISOString() });
  let closed = false;
  return {
    app,
    gateway,
    url,
    adminToken,
    loginUrl: () => `${url}/login?code=${sessions.mintCode().code}`,
    async close() {
      if (closed) return;
      closed = true;
      removeRuntime(opts.dataDir, process.pid);
      await app.close();
      await gateway.close();
    },
  };
}
