import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { consoleRoutes } from './admin/console.js';
import { adminRoutes } from './admin/routes.js';
import { ConsoleSessions } from './admin/session.js';
import type { StatusView } from './contract/admin/index.js';
import type { Gateway } from './compose/gateway.js';
import { pausedError } from './compose/pause.js';
import type { Where } from './connect/index.js';
import { asGatewayError, GatewayError } from './core/errors.js';
import type { FormatRoute, WireFormat } from './core/format.js';
import { invalidUtf8Offset, singleQuery } from './core/input.js';
import { newExchange, type Exchange } from './relay/exchange.js';
import { sendJson } from './relay/respond.js';
import { handleRoute } from './relay/route.js';
import { INSTANCE_HEADER, INSTANCE_ID } from './relay/upstream-call.js';
import { settle } from './relay/settle.js';
import type { KeyRecord } from './store/types.js';
import { FORMAT_LIST } from './wire/index.js';
import { notFoundHint } from './wrong-path.js';

declare module 'fastify' {
  interface FastifyRequest {
    exchange: Exchange | null;
    rawBody: string;
    tollgateKey: KeyRecord | null;
    /** The wire format answering this request (chosen by headers where a path is shared). */
    format: WireFormat | null;
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
  /** Where internal errors are written (one JSON line each); stderr unless a test listens. */
  errorLog?: NodeJS.WritableStream | undefined;
}

/**
 * 32 MB: the most Anthropic's Messages API takes (it answers 413 beyond), and room for several
 * images inlined as base64 on the other APIs. A larger body would be refused upstream anyway,
 * after a slow upload; refusing it here is the same answer, sooner, on every interface alike.
 */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** The admin API takes small JSON objects only. */
export const ADMIN_BODY_LIMIT = 1024 * 1024;

/**
 * A request must arrive whole (headers and body) within this time: a client that sends its body a
 * byte at a time would otherwise hold a connection, and a file descriptor, for ever.
 */
export const REQUEST_TIMEOUT_MS = 120_000;

/**
 * Open client connections at most. A terminal on macOS gives a process 256 file descriptors, and
 * the ledger, the config and the upstream pools need some of them: beyond this, new connections
 * are closed at once instead of taking the last descriptors. Coding tools open a few each, so no
 * real use comes near it; slow or idle sockets are the ones that pile up (REQUEST_TIMEOUT_MS and
 * Node's header timeout drop them).
 */
export const MAX_CONNECTIONS = 200;

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Turns what Fastify throws (bad JSON, schema failures, oversized bodies) into a GatewayError. */
function toGatewayError(err: FastifyError | Error, bodyLimit: number): GatewayError {
  if (err instanceof GatewayError) return err;
  const fe = err as FastifyError;
  if (fe.validation)
    return new GatewayError('invalid_request', `Invalid request body: ${err.message}.`, { code: 'invalid_body' });
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLarge(bodyLimit);
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new GatewayError('invalid_request', 'The request body is empty; send a JSON object.', {
      code: 'invalid_json',
    });
  if (err instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new GatewayError('invalid_request', `The request body is not valid JSON: ${err.message}`, {
      code: 'invalid_json',
    });
  }
  if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500)
    return new GatewayError('invalid_request', err.message, { code: 'invalid_request', status: fe.statusCode });
  return asGatewayError(err);
}

function bodyTooLarge(limit: number): GatewayError {
  const mb = Math.round((limit / 1024 / 1024) * 10) / 10;
  return new GatewayError(
    'invalid_request',
    `The request body is larger than ${mb} MB, the most Tollgate forwards (upstream APIs refuse larger ones). Send fewer or smaller images and documents, or shorten the conversation.`,
    {
      code: 'body_too_large',
      status: 413,
    },
  );
}

/** Reads a body as bytes and refuses one that is not UTF-8, naming where, instead of replacing the bytes. */
export function decodeBody(buf: Buffer): string {
  const at = invalidUtf8Offset(buf);
  if (at >= 0) {
    throw new GatewayError(
      'invalid_request',
      `The request body is not valid UTF-8: byte ${at} (0x${buf[at]!.toString(16).padStart(2, '0')}) does not start or continue a UTF-8 character. Send JSON encoded as UTF-8.`,
      {
        code: 'invalid_utf8',
      },
    );
  }
  return buf.toString('utf8');
}

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const g = opts.gateway;
  const bodyLimit = opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const errorLog = opts.errorLog ?? process.stderr;
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit,
    // Clients keep connections open between turns; outlive their idle timers.
    keepAliveTimeout: 75_000,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Validate as written: "stream":"true" is an error, not a boolean.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });
  app.decorateRequest('exchange', null);
  app.decorateRequest('rawBody', '');
  app.decorateRequest('tollgateKey', null);
  app.decorateRequest('format', null);

  // Bodies are kept as received (for the prompt estimate and pass-through) and parsed once.
  // Any content type is read as JSON: some clients omit or mislabel it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = decodeBody(body as Buffer);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    req.rawBody = text;
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      (err as SyntaxError & { statusCode?: number }).statusCode = 400;
      done(err as Error, undefined);
    }
  });

  const sessions = opts.sessions ?? new ConsoleSessions();
  await app.register(consoleRoutes, { sessions });
  await app.register(adminRoutes, {
    gateway: g,
    token: opts.adminToken,
    status: opts.status,
    toolsHome: opts.toolsHome,
    sessions,
    bodyLimit: ADMIN_BODY_LIMIT,
    logInternal: (req, err) => logInternal(errorLog, req, err),
  });

  const byPath = new Map<string, Mounted[]>();
  for (const format of FORMAT_LIST) {
    for (const route of format.routes) {
      const key = `${route.method} ${route.url}`;
      byPath.set(key, [...(byPath.get(key) ?? []), { format, route }]);
    }
  }
  for (const entries of byPath.values()) mountRoute(app, g, entries, errorLog);

  app.server.maxConnections = MAX_CONNECTIONS;

  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    const format = req.format ?? FORMAT_LIST[0]!;
    const gerr = toGatewayError(err, bodyLimit);
    if (gerr.kind === 'internal') logInternal(errorLog, req, err);
    if (req.exchange)
      await settle(g.billing, req.exchange, { status: gerr.status, usage: null, usageEstimated: false, error: gerr });
    const enc = format.encodeError(gerr);
    if (req.exchange) void reply.header('x-request-id', req.exchange.requestId);
    return reply.code(enc.status).headers(enc.headers).send(enc.body);
  });

  app.setNotFoundHandler(async (req, reply) => {
    if (req.url === '/api' || req.url.startsWith('/api/')) {
      return reply.code(404).send({
        error: {
          code: 'not_found',
          message: `The admin API has no route ${req.method} ${req.url.split('?')[0]}. See docs/admin-api.md.`,
        },
      });
    }
    const { format, error } = notFoundHint(req.method, req.url, one(req.headers.host) ?? '127.0.0.1:4141');
    const enc = format.encodeError(error);
    return reply.code(enc.status).headers(enc.headers).send(enc.body);
  });

  return app;
}

interface Mounted {
  format: WireFormat;
  route: FormatRoute;
}

/** Where formats share a path, the one whose `accepts` matches the headers answers; else the default. */
function choose(entries: Mounted[], headers: Record<string, string | string[] | undefined>): Mounted {
  return entries.find((e) => e.route.accepts?.(headers)) ?? entries.find((e) => !e.route.accepts) ?? entries[0]!;
}

function mountRoute(app: FastifyInstance, g: Gateway, entries: Mounted[], errorLog: NodeJS.WritableStream): void {
  const first = entries[0]!;
  app.route({
    method: first.route.method,
    url: first.route.url,
    ...(first.route.bodySchema ? { schema: { body: first.route.bodySchema } } : {}),
    // Authenticate before the body is parsed: an unauthenticated request costs no parsing.
    onRequest: async (req: FastifyRequest) => {
      const { format, route } = choose(entries, req.headers);
      req.format = format;
      // Paused: refused before an exchange exists, so nothing is held and no ledger row is written.
      if (g.pause.paused) throw pausedError();
      if (one(req.headers[INSTANCE_HEADER]) === INSTANCE_ID) {
        throw new GatewayError(
          'upstream_unavailable',
          "This request came from this Tollgate gateway itself: a line points back at the gateway. Give that line the upstream provider's URL.",
          {
            code: 'loop_detected',
            status: 508,
          },
        );
      }
      const repeated = singleQuery(req.query);
      if (repeated) throw repeated;
      // Authenticate first: a request without a valid key writes no ledger row (a web page could
      // otherwise fill the ledger); it is counted instead, and repeated failures are slowed.
      let key: KeyRecord;
      try {
        key = g.keys.authenticate({
          authorization: one(req.headers.authorization),
          xApiKey: one(req.headers['x-api-key']),
          xGoogApiKey: one(req.headers['x-goog-api-key']),
          queryKey: (req.query as Record<string, string | undefined>).key,
        });
      } catch (err) {
        const wait = g.keys.failures.fail();
        if (wait > 0) await sleep(wait);
        throw err;
      }
      // Only model requests get a ledger row; a model route may still turn out to be a local answer.
      const ex = newExchange(format.id, route.method === 'POST' && 'model' in route);
      req.exchange = ex;
      ex.key = key;
      req.tollgateKey = key;
    },
    handler: async (req, reply) => {
      reply.hijack();
      const res = reply.raw;
      const ex = req.exchange!;
      const { format, route } = choose(entries, req.headers);
      if (route.bodySchema && (req.body === undefined || req.body === null || typeof req.body !== 'object')) {
        // Fastify's schema check passes an absent body; answer it like any invalid body.
        const err = new GatewayError('invalid_request', 'The request body must be a JSON object.', {
          code: 'invalid_body',
        });
        return fail(g, format, ex, res, err);
      }
      try {
        const request = {
          body: req.body,
          rawBody: req.rawBody,
          params: req.params as Record<string, string>,
          query: req.query as Record<string, string | undefined>,
          headers: req.headers,
        };
        await handleRoute(g.relay, { format, route, exchange: ex, key: req.tollgateKey!, req: request, res });
      } catch (err) {
        const gerr = asGatewayError(err);
        if (gerr.kind === 'internal') logInternal(errorLog, req, err);
        await fail(g, format, ex, res, gerr);
      }
    },
  });
}

async function fail(
  g: Gateway,
  format: WireFormat,
  ex: Exchange,
  res: import('node:http').ServerResponse,
  err: GatewayError,
): Promise<void> {
  await settle(g.billing, ex, { status: err.status, usage: null, usageEstimated: false, error: err });
  if (res.headersSent) {
    res.end();
    return;
  }
  if (res.destroyed) return;
  const enc = format.encodeError(err);
  sendJson(res, enc.status, enc.body, { ...enc.headers, 'x-request-id': ex.requestId });
}

/**
 * Every 500 tells the client to look in the gateway log, so each one is written there: one JSON
 * line with the request id, the route and the stack. Never the body or headers (they hold keys).
 */
function logInternal(out: NodeJS.WritableStream, req: FastifyRequest, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  const line = {
    time: new Date().toISOString(),
    level: 'error',
    msg: 'internal error',
    requestId: req.exchange?.requestId,
    method: req.method,
    path: req.url.split('?')[0]!.slice(0, 200),
    error: e.message,
    stack: e.stack,
  };
  out.write(JSON.stringify(line) + '\n');
}
