import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Billing } from '../billing/billing.js';
import { asGatewayError, GatewayError } from '../core/errors.js';
import { settleFailure } from '../relay/settle.js';
import { FORMAT_LIST } from '../wire/index.js';
import { bodyTooLarge } from './body.js';
import { notFoundHint } from './wrong-path.js';

/** Where a failed request is recorded: its ledger row, and the gateway log for Tollgate's own faults. */
export interface Failures {
  billing: Pick<Billing, 'settle'>;
  /** Internal errors are written here, one JSON line each (stderr unless a test listens). */
  errorLog: NodeJS.WritableStream;
}

/**
 * Records a request that failed before its answer, whichever way it failed (a body refused while
 * it was read, a refused admission, every line failing, a bug): an internal error goes to the
 * gateway log, and a model request gets its one ledger row (relay/settle.ts, settleFailure). The
 * caller then answers in the client's format. `thrown` is what was caught, for the log's stack.
 */
export async function recordFailure(
  f: Failures,
  req: FastifyRequest,
  err: GatewayError,
  thrown: unknown,
): Promise<void> {
  if (err.kind === 'internal') logInternal(f.errorLog, req, thrown);
  if (req.exchange) await settleFailure(f.billing, req.exchange, err);
}

/**
 * Every 500 tells the client to look in the gateway log, so each one is written there: one JSON
 * line with the request id, the route and the stack. Never the body or headers (they hold keys).
 */
export function logInternal(out: NodeJS.WritableStream, req: FastifyRequest, err: unknown): void {
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

/** Turns what Fastify throws (bad JSON, schema failures, oversized bodies) into a GatewayError. */
export function toGatewayError(err: FastifyError | Error, bodyLimit: number): GatewayError {
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

export interface ErrorHandlingOptions extends Failures {
  /** The model routes' body limit, named in the 413's message. */
  bodyLimit: number;
}

/**
 * The error handler of every route outside the admin API (which has its own), and the answer for a
 * path no route serves. A request refused before its handler ran (by the request guard, or while
 * its body was read and checked) is answered here in its format's error shape (the first format's
 * before a format was chosen), and recorded (recordFailure). A failure inside a format route's
 * handler is answered there (format-routes.ts): that handler writes to the socket itself.
 */
export const errorHandling = fp<ErrorHandlingOptions>(
  async (app, opts) => {
    const failures: Failures = { billing: opts.billing, errorLog: opts.errorLog };
    app.setErrorHandler(async (err: FastifyError, req, reply) => {
      const format = req.format ?? FORMAT_LIST[0]!;
      const gerr = toGatewayError(err, opts.bodyLimit);
      await recordFailure(failures, req, gerr, err);
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
      const { format, error } = notFoundHint(req.method, req.url, req.headers.host ?? '127.0.0.1:4141');
      const enc = format.encodeError(error);
      return reply.code(enc.status).headers(enc.headers).send(enc.body);
    });
  },
  { name: 'tollgate-error-handling', fastify: '5.x' },
);

/**
 * Fastify's own refusals before any route runs (a bad %-escape in the path): its default answer
 * echoes the whole URL, query and all, so a `?key=sk-…` would come back in the body. Answered
 * instead in the first format's error shape, echoing nothing.
 */
export function frameworkError(err: FastifyError, _req: unknown, reply: FastifyReply): void {
  const bad = err.code === 'FST_ERR_BAD_URL';
  const enc = FORMAT_LIST[0]!.encodeError(
    new GatewayError(
      'invalid_request',
      bad
        ? 'The request path is not a valid URL (a malformed %-escape); nothing was done.'
        : 'The request was refused.',
      { code: bad ? 'bad_url' : 'invalid_request' },
    ),
  );
  void reply.code(enc.status).headers(enc.headers).send(enc.body);
}
