import Fastify, { type FastifyInstance } from 'fastify';
import { consoleRoutes } from './admin/console.js';
import { adminRoutes } from './admin/routes.js';
import { ConsoleSessions } from './admin/session.js';
import type { StatusView } from './contract/admin/index.js';
import type { Gateway } from './compose/gateway.js';
import type { Where } from './connect/index.js';
import { ADMIN_BODY_LIMIT, bodyParsing, DEFAULT_BODY_LIMIT } from './http/body.js';
import { errorHandling, frameworkError, logInternal } from './http/errors.js';
import { clientErrors, REQUEST_CHECK_INTERVAL_MS, REQUEST_TIMEOUT_MS } from './http/client-errors.js';
import { formatRoutes } from './http/format-routes.js';
import { requestGuard } from './http/guard.js';
import { manageConnections, ModelLane, type ConnectionStats } from './http/connections.js';

export { ADMIN_BODY_LIMIT, DEFAULT_BODY_LIMIT } from './http/body.js';
export { CONNECTION_CEILING, MODEL_LANE } from './http/connections.js';
export { REQUEST_CHECK_INTERVAL_MS, REQUEST_TIMEOUT_MS } from './http/client-errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Open, idle, reclaimed and refused client sockets (http/connections.ts). */
    connectionStats: () => ConnectionStats;
  }
}

export interface ServerOptions {
  gateway: Gateway;
  adminToken: string;
  status: () => StatusView;
  /** The home and environment whose coding tools `tollgate connect` edits; this process's when absent. */
  toolsHome?: Where | undefined;
  /** Console logins (one-time codes and session cookies); serve.ts shares it to print login URLs. */
  sessions?: ConsoleSessions;
  logger?: boolean;
  /** The largest model request body, in bytes (DEFAULT_BODY_LIMIT unless the user chose another). */
  bodyLimitBytes?: number | undefined;
  /** The bound on model requests in flight (http/connections.ts); its default unless a test sets one. */
  modelLane?: ModelLane | undefined;
  /** Where internal errors are written (one JSON line each); stderr unless a test listens. */
  errorLog?: NodeJS.WritableStream | undefined;
  /** How long a request may take to arrive whole, headers and body (REQUEST_TIMEOUT_MS unless a test sets it). */
  requestTimeoutMs?: number | undefined;
  /** How often requests past that time are looked for (REQUEST_CHECK_INTERVAL_MS unless a test sets it). */
  requestCheckIntervalMs?: number | undefined;
}

/**
 * The Fastify shell: the plugins of gateway/http/ (body parsing, the error handler, the request
 * guard, the formats' routes) around the console and the admin API (gateway/admin/).
 */
export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const g = opts.gateway;
  const bodyLimit = opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const errorLog = opts.errorLog ?? process.stderr;
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit,
    // Clients keep connections open between turns; outlive their idle timers.
    keepAliveTimeout: 75_000,
    // A slow sender is answered in its request's format and cut (http/client-errors.ts).
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout: Math.min(60_000, requestTimeout),
      connectionsCheckingInterval: opts.requestCheckIntervalMs ?? REQUEST_CHECK_INTERVAL_MS,
    },
    clientErrorHandler: clientErrors(requestTimeout),
    frameworkErrors: frameworkError,
    // Validate as written: "stream":"true" is an error, not a boolean.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });
  // No fixed cap idle sockets could fill: the oldest idle ones make room (http/connections.ts).
  const connections = manageConnections(app.server);
  app.decorate('connectionStats', connections);

  await app.register(bodyParsing);
  await app.register(errorHandling, { billing: g.billing, errorLog, bodyLimit });
  await app.register(requestGuard, { gateway: g, lane: opts.modelLane ?? new ModelLane() });

  const sessions = opts.sessions ?? new ConsoleSessions();
  await app.register(consoleRoutes, { sessions, failures: g.keys.failures });
  await app.register(adminRoutes, {
    gateway: g,
    token: opts.adminToken,
    status: opts.status,
    toolsHome: opts.toolsHome,
    sessions,
    bodyLimit: ADMIN_BODY_LIMIT,
    logInternal: (req, err) => logInternal(errorLog, req, err),
  });
  await app.register(formatRoutes, { gateway: g, errorLog });
  return app;
}
