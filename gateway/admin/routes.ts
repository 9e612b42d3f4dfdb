import { Type, type TObject } from '@sinclair/typebox';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Where } from '../connect/index.js';
import type { Gateway } from '../compose/gateway.js';
import { GatewayError } from '../core/errors.js';
import { singleQuery } from '../core/input.js';
import { AuthFailures } from '../keys/failures.js';
import {
  ADMIN_ROUTES,
  AdminError,
  type AdminRoute,
  logFilterOf,
  LogsQuery,
  type RouteInput,
  type RouteName,
  type StatusView,
  successStatus,
} from '../contract/admin/index.js';
import { hostIsLoopback, originAllowed, remoteIsLoopback } from './guard.js';
import { adminHandlers, type AdminHandlers } from './handlers.js';
import { logsCsv } from './logs-csv.js';
import { EventHub, eventRoutes } from './events.js';
import { adminCaller, CONSOLE_HEADER, PAGE_TOKEN_PARAM, type ConsoleSessions } from './session.js';

export interface AdminOptions {
  gateway: Gateway;
  token: string;
  status: () => StatusView;
  /** The home and environment whose coding tools the connect routes edit; this process's when absent. */
  toolsHome?: Where | undefined;
  sessions: ConsoleSessions;
  /** The largest request body (the admin API takes small JSON objects). */
  bodyLimit: number;
  /** Internal errors are written here (server.ts). */
  logInternal: (req: FastifyRequest, err: unknown) => void;
}

/** The usage log as CSV: the filters of GET /api/logs, every matching row, streamed. */
const CSV_PATH = '/api/logs.csv';
const CsvQuery = Type.Object({
  ...Type.Omit(LogsQuery, ['limit', 'before']).properties,
  [PAGE_TOKEN_PARAM]: Type.Optional(Type.String({ maxLength: 100 })),
});

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function queryText(query: unknown, name: string): string | undefined {
  if (typeof query !== 'object' || query === null || !Object.hasOwn(query, name)) return undefined;
  const v = (query as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** The admin API under /api/, registered from the route table (gateway/contract/admin/routes.ts). */
export async function adminRoutes(app: FastifyInstance, opts: AdminOptions): Promise<void> {
  const failures = new AuthFailures();
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const repeated = singleQuery(req.query);
    if (repeated) throw new AdminError(400, repeated.code, repeated.message);
    const host = header(req, 'host');
    if (!hostIsLoopback(host) || !remoteIsLoopback(req.socket.remoteAddress)) {
      throw new AdminError(
        403,
        'forbidden_host',
        'The admin API answers only on a loopback address (127.0.0.1 or localhost).',
      );
    }
    if (!originAllowed(header(req, 'origin'), header(req, 'sec-fetch-site'), host)) {
      throw new AdminError(403, 'forbidden_origin', 'Cross-origin requests to the admin API are refused.');
    }
    // The CSV download is a plain link (a browser cannot add a header to one), so its page token
    // may come in the query instead; it is still checked against the session like the header.
    const download = req.method === 'GET' && req.url.split('?')[0] === CSV_PATH;
    const caller = adminCaller(
      {
        authorization: header(req, 'authorization'),
        cookie: header(req, 'cookie'),
        host,
        console: header(req, CONSOLE_HEADER) ?? (download ? queryText(req.query, PAGE_TOKEN_PARAM) : undefined),
      },
      opts.token,
      opts.sessions,
    );
    if (caller === 'missing_header') {
      throw new AdminError(
        403,
        'console_header_required',
        `Console requests must carry the session's page token in the ${CONSOLE_HEADER} header; log in again with tollgate open.`,
      );
    }
    if (caller === undefined) {
      const wait = failures.fail();
      if (wait > 0) await sleep(wait);
      void reply.header('www-authenticate', 'Bearer');
      throw new AdminError(
        401,
        'admin_token_required',
        'The admin API needs the admin token (in the data dir, file admin-token) as "Authorization: Bearer <token>".',
      );
    }
  });

  app.setErrorHandler(async (err: Error & { statusCode?: number; validation?: unknown }, req, reply) => {
    if (err instanceof AdminError)
      return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
    // The body parser's own refusals (invalid UTF-8), shared with the model routes.
    if (err instanceof GatewayError && err.status < 500)
      return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
    if ((err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({
        error: {
          code: 'body_too_large',
          message: `The request body is larger than ${opts.bodyLimit / 1024} KB, more than any admin request needs.`,
        },
      });
    }
    if (err.validation || (err.statusCode && err.statusCode < 500)) {
      return reply.code(err.statusCode ?? 400).send({ error: { code: 'invalid_request', message: err.message } });
    }
    opts.logInternal(req, err);
    return reply.code(500).send({ error: { code: 'internal', message: 'Internal error; see the gateway log.' } });
  });

  const handlers = adminHandlers(opts.gateway, opts.status, opts.sessions, opts.toolsHome);
  for (const name of Object.keys(ADMIN_ROUTES) as RouteName[]) mount(app, name, handlers, opts.bodyLimit);
  // Streams, not JSON replies: outside the route table, behind the same guard.
  const hub = new EventHub(opts.gateway, opts.status);
  app.addHook('preClose', async () => hub.close());
  eventRoutes(app, hub);
  app.get(CSV_PATH, {
    schema: { querystring: CsvQuery },
    preValidation: async (req: FastifyRequest) => {
      req.query = fromQueryText(CsvQuery, req.query);
    },
    handler: async (req, reply) => {
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="tollgate-usage-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(logsCsv(opts.gateway.ledger.reports, logFilterOf(req.query as LogsQuery)));
    },
  });
}

function mount<N extends RouteName>(app: FastifyInstance, name: N, handlers: AdminHandlers, bodyLimit: number): void {
  const route: AdminRoute = ADMIN_ROUTES[name];
  const handle = handlers[name];
  const query = route.query;
  app.route({
    method: route.method,
    url: route.path,
    bodyLimit,
    schema: {
      ...(route.params && { params: route.params }),
      ...(query && { querystring: query }),
      ...(route.body && { body: route.body }),
    },
    ...(query && {
      preValidation: async (req: FastifyRequest) => {
        req.query = fromQueryText(query, req.query);
      },
    }),
    // Fastify has checked params, query and body against this route's own schemas by now.
    handler: async (req, reply) => {
      const ctx = {
        cookie: header(req, 'cookie'),
        host: header(req, 'host'),
        setCookie: (v: string) => void reply.header('set-cookie', v),
      };
      return reply
        .code(successStatus(route))
        .send(await handle({ params: req.params, query: req.query, body: req.body } as RouteInput<N>, ctx));
    },
  });
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A query string is all text; the schema says which fields are numbers or booleans, and the
 * validator (which coerces nothing, server.ts) then checks them: `limit=1.5` is a number but not an
 * integer, `limit=` stays text, and both are refused.
 */
function fromQueryText(schema: TObject, query: unknown): unknown {
  if (typeof query !== 'object' || query === null) return query;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    const type: unknown = schema.properties[k]?.type;
    if (typeof v === 'string' && (type === 'integer' || type === 'number') && DECIMAL.test(v)) out[k] = Number(v);
    else if (typeof v === 'string' && type === 'boolean' && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else out[k] = v;
  }
  return out;
}
