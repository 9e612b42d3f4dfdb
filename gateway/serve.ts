import type { FastifyInstance } from 'fastify';
import { ConsoleSessions } from './admin/session.js';
import { loadOrCreateAdminToken } from './admin/token.js';
import { explainBusy, removeRuntime, writeRuntime } from './runtime.js';
import type { Where } from './connect/index.js';
import { ModelLane } from './http/connections.js';
import { buildServer } from './server.js';
import { closeServer } from './shutdown.js';
import { VERSION } from './version.js';
import { releaseStartupMemory } from './startup-memory.js';
import { openGateway, type Gateway } from './compose/gateway.js';
import { DataDirBusyError } from './store/data-dir-lock.js';
import { settingsOf } from './store/settings.js';
import type { SecretStore } from './store/secrets.js';

export interface ServeOptions {
  dataDir: string;
  /** Where upstream keys live; the OS keychain unless a test says otherwise. */
  secrets?: SecretStore;
  /** Where to bind; the host and port settings (store/settings.ts) when absent. */
  host?: string | undefined;
  port?: number | undefined;
  /** The home and environment whose coding tools `tollgate connect` edits; this process's unless a test says otherwise. */
  toolsHome?: Where;
  logger?: boolean;
  /** The largest model request body in bytes (http/body.ts DEFAULT_BODY_LIMIT when absent). */
  bodyLimitBytes?: number;
  /** Where internal errors are logged; stderr when absent. */
  errorLog?: NodeJS.WritableStream;
  /** Model requests in flight at most (http/connections.ts MODEL_LANE when absent). */
  modelLaneLimit?: number;
  /** How long a request may take to arrive whole, and how often that is checked (http/client-errors.ts defaults when absent). */
  requestTimeoutMs?: number;
  requestCheckIntervalMs?: number;
  /**
   * Runs once the data dir is open and before the gateway listens: the desktop app's gateway
   * process moves its old settings into the gateway's here, and says where it binds when the
   * host setting leaves its console no loopback address (desktop-child.ts).
   */
  beforeListen?: (gateway: Gateway) => Promise<{ host?: string } | void>;
  /**
   * Gives start-up's memory back before listening (startup-memory.ts): for a process that is the
   * gateway (`tollgate serve`, the desktop app's gateway process), not for tests that start many.
   */
  releaseStartupMemory?: boolean;
}

export interface Running {
  app: FastifyInstance;
  gateway: Gateway;
  url: string;
  /** The address it bound to (the option, else the host setting). */
  host: string;
  adminToken: string;
  /** A fresh one-time URL that logs a browser into the console (for the banner and tests). */
  loginUrl(): string;
  /**
   * Stops listening, lets requests in flight finish (cut after `graceMs`) without waiting on idle
   * keep-alive connections, then closes the ledger (shutdown.ts).
   */
  close(graceMs?: number): Promise<void>;
}

export { VERSION };

/** Requests in flight get this long to finish when the gateway closes; the desktop app kills its gateway process after 30 s. */
export const CLOSE_GRACE_MS = 25_000;

/**
 * Opens the data dir, starts the gateway and records where it listens. Throws DataDirBusyError,
 * naming the running gateway's URL where it can, when another one holds the data dir.
 */
export async function serve(opts: ServeOptions): Promise<Running> {
  const gateway = await openGateway(opts.dataDir, opts.secrets).catch(async (err: unknown) => {
    throw err instanceof DataDirBusyError ? await explainBusy(err) : err;
  });
  let app: FastifyInstance | undefined;
  try {
    // Requests a stopped gateway left unsettled become `interrupted` rows before any new one is admitted (store/ledger.ts).
    const interrupted = gateway.ledger.closeInterrupted();
    if (interrupted > 0)
      process.stderr.write(
        `tollgate: ${interrupted} requests were cut off when the gateway last stopped; logged as interrupted, nothing charged.\n`,
      );
    const trustProblem = gateway.trust().problem;
    if (trustProblem) process.stderr.write(`tollgate: the CA settings are not all in force: ${trustProblem}\n`);
    const adminToken = loadOrCreateAdminToken(opts.dataDir);
    let url = '';
    const sessions = new ConsoleSessions();
    app = await buildServer({
      gateway,
      adminToken,
      sessions,
      logger: opts.logger ?? false,
      toolsHome: opts.toolsHome,
      bodyLimitBytes: opts.bodyLimitBytes,
      errorLog: opts.errorLog,
      requestTimeoutMs: opts.requestTimeoutMs,
      requestCheckIntervalMs: opts.requestCheckIntervalMs,
      ...(opts.modelLaneLimit === undefined ? {} : { modelLane: new ModelLane(opts.modelLaneLimit) }),
      status: () => ({ version: VERSION, dataDir: opts.dataDir, url, paused: gateway.pause.paused }),
    });
    const early = (await opts.beforeListen?.(gateway)) ?? {};
    const settings = settingsOf(gateway.config.data);
    const bind = { host: opts.host ?? early.host ?? settings.host, port: opts.port ?? settings.port };
    if (opts.releaseStartupMemory) {
      await app.ready();
      releaseStartupMemory();
    }
    await app.listen(bind).catch((err: unknown) => {
      throw listenError(err, bind);
    });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : bind.port;
    const host = bind.host === '0.0.0.0' || bind.host === '::' ? '127.0.0.1' : bind.host;
    url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    // Written once listening, for the CLI and the desktop app to find the URL.
    writeRuntime(opts.dataDir, { url, pid: process.pid, startedAt: new Date().toISOString() });
    return running(opts.dataDir, app, gateway, { url, host: bind.host }, adminToken, sessions);
  } catch (err) {
    // Whatever failed, the data dir is given back: the next start must not find it held.
    await app?.close();
    await gateway.close();
    throw err;
  }
}

/** The gateway could not listen where it was told to; the message says why in words. Keeps the system code. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The listen failures a user's --host or --port cause, in words; anything else as it was. */
function listenError(err: unknown, bind: { host: string; port: number }): unknown {
  const code = (err as { code?: string }).code ?? '';
  const where = `Tollgate cannot listen on ${bind.host} port ${bind.port}`;
  const why: Record<string, string> = {
    ENOTFOUND: `${where}: no such address (not an IP address, and the name does not resolve).`,
    EAI_AGAIN: `${where}: no such address (the name does not resolve now).`,
    EADDRNOTAVAIL: `${where}: ${bind.host} is not an address of this machine.`,
    EADDRINUSE: `${where}: the port is in use by another program; choose another with --port.`,
    EACCES: `${where}: not allowed (ports below 1024 need privileges); choose another with --port.`,
  };
  const message = Object.hasOwn(why, code) ? why[code] : undefined;
  return message === undefined ? err : new ListenError(message, code);
}

function running(
  dataDir: string,
  app: FastifyInstance,
  gateway: Gateway,
  where: { url: string; host: string },
  adminToken: string,
  sessions: ConsoleSessions,
): Running {
  const { url, host } = where;
  let closed = false;
  return {
    app,
    gateway,
    url,
    host,
    adminToken,
    loginUrl: () => `${url}/login?code=${sessions.mintCode().code}`,
    async close(graceMs = CLOSE_GRACE_MS) {
      if (closed) return;
      closed = true;
      removeRuntime(dataDir, process.pid);
      await closeServer(app, { graceMs, settled: () => gateway.billing.reservations.heldMicro() === 0 });
      await gateway.close();
    },
  };
}
