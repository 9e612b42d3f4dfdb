import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { asGatewayError, GatewayError } from '../core/errors.js';
import type { FormatRoute, WireFormat } from '../core/format.js';
import type { RelayServices } from '../relay/ports.js';
import { sendJson } from '../relay/respond.js';
import { handleRoute } from '../relay/route.js';
import { FORMAT_LIST } from '../wire/index.js';
import { recordFailure, type Failures } from './errors.js';

/** One format's route on a method and path. */
export interface Mounted {
  format: WireFormat;
  route: FormatRoute;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The formats' routes on this method and path: marks a model API route for the request guard (guard.ts). */
    formats?: readonly Mounted[];
  }
}

/** Where formats share a path, the one whose `accepts` matches the headers answers; else the default. */
export function choose(entries: readonly Mounted[], headers: Record<string, string | string[] | undefined>): Mounted {
  return entries.find((e) => e.route.accepts?.(headers)) ?? entries.find((e) => !e.route.accepts) ?? entries[0]!;
}

export interface FormatRoutesOptions {
  /** The relay's services, and the billing a failure is settled with. */
  gateway: { relay: RelayServices; billing: Failures['billing'] };
  errorLog: NodeJS.WritableStream;
}

/**
 * Every wire format's routes (wire/index.ts), one Fastify route per method and path; formats that
 * share a path are told apart by headers (choose). Each route names its formats in
 * `config.formats`, which puts the request guard (guard.ts) in front of it: the plugin refuses to
 * load unless the guard, body parsing and the error handler are registered first. fastify-plugin
 * keeps the routes in the server's root scope (no encapsulated scope, so no request class of their
 * own on the request path). The handler writes to the socket itself (streams), so it answers its
 * own failures.
 */
export const formatRoutes = fp<FormatRoutesOptions>(
  async (app, opts) => {
    const failures: Failures = { billing: opts.gateway.billing, errorLog: opts.errorLog };
    const byPath = new Map<string, Mounted[]>();
    for (const format of FORMAT_LIST) {
      for (const route of format.routes) {
        const key = `${route.method} ${route.url}`;
        byPath.set(key, [...(byPath.get(key) ?? []), { format, route }]);
      }
    }
    for (const entries of byPath.values()) mountRoute(app, opts.gateway.relay, failures, entries);
  },
  {
    name: 'tollgate-format-routes',
    fastify: '5.x',
    dependencies: ['tollgate-body-parsing', 'tollgate-error-handling', 'tollgate-request-guard'],
  },
);

function mountRoute(app: FastifyInstance, relay: RelayServices, failures: Failures, entries: Mounted[]): void {
  const first = entries[0]!;
  app.route({
    method: first.route.method,
    url: first.route.url,
    ...(first.route.bodySchema ? { schema: { body: first.route.bodySchema } } : {}),
    config: { formats: entries },
    handler: async (req, reply) => {
      reply.hijack();
      const res = reply.raw;
      const { format, route } = choose(entries, req.headers);
      if (route.bodySchema && (req.body === undefined || req.body === null || typeof req.body !== 'object')) {
        // Fastify's schema check passes an absent body; answer it like any invalid body.
        const err = new GatewayError('invalid_request', 'The request body must be a JSON object.', {
          code: 'invalid_body',
        });
        return fail(failures, req, format, res, err, err);
      }
      try {
        const request = {
          body: req.body,
          rawBody: req.rawBody,
          rawBytes: req.rawBytes,
          params: req.params as Record<string, string>,
          query: req.query as Record<string, string | undefined>,
          headers: req.headers,
        };
        await handleRoute(relay, {
          format,
          route,
          exchange: req.exchange!,
          key: req.tollgateKey!,
          req: request,
          res,
        });
      } catch (err) {
        await fail(failures, req, format, res, asGatewayError(err), err);
      }
    },
  });
}

/**
 * A failure inside the handler: recorded as every failure is (errors.ts), then answered in the
 * format's error shape if nothing was written yet; a stream already under way is only ended.
 */
async function fail(
  failures: Failures,
  req: FastifyRequest,
  format: WireFormat,
  res: ServerResponse,
  err: GatewayError,
  thrown: unknown,
): Promise<void> {
  await recordFailure(failures, req, err, thrown);
  if (res.headersSent) {
    res.end();
    return;
  }
  if (res.destroyed) return;
  const enc = format.encodeError(err);
  sendJson(res, enc.status, enc.body, { ...enc.headers, 'x-request-id': req.exchange!.requestId });
}
