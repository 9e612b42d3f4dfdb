/**
 * One error type for the whole gateway. Every failure a client can see is a GatewayError;
 * each wire format turns it into its own error shape (wire/<id>/errors.ts), so an
 * SDK raises its normal typed error.
 */
export type ErrorKind =
  | 'invalid_request' // 400: bad JSON, bad body
  | 'authentication' // 401: key missing, unknown, disabled, deleted, expired, damaged
  | 'insufficient_funds' // 402: wallet or key quota cannot cover the reservation
  | 'permission' // 403
  | 'not_found' // 404: wrong path
  | 'model_not_found' // 404: unknown model or outside the key's group
  | 'rate_limit' // 429: line or key limit, or upstream 429
  | 'upstream_error' // 502: upstream answered with a failure
  | 'upstream_unavailable' // 503: upstream unreachable, or no line serves the model
  | 'upstream_timeout' // 504
  | 'internal'; // 500

const STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  insufficient_funds: 402,
  permission: 403,
  not_found: 404,
  model_not_found: 404,
  rate_limit: 429,
  upstream_error: 502,
  upstream_unavailable: 503,
  upstream_timeout: 504,
  internal: 500,
};

export interface GatewayErrorOptions {
  /** Machine-readable code for logs and the `code` field, e.g. `key_disabled`. */
  code?: string;
  /** HTTP status when it differs from the kind's default (an upstream 400 passed on, say). */
  status?: number;
  /** Seconds, sent as `retry-after`. */
  retryAfter?: number;
  /** The request field at fault, where one is. */
  param?: string;
}

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly code: string;
  readonly retryAfter: number | undefined;
  readonly param: string | undefined;

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message);
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = options.status ?? STATUS[kind];
    this.code = options.code ?? kind;
    this.retryAfter = options.retryAfter;
    this.param = options.param;
  }
}

/**
 * Anything thrown that is not a GatewayError is a bug: report it as a 500 without internals. One
 * exception: a stack overflow comes from a body nested thousands of levels deep (JSON.parse takes
 * it, re-encoding it for another format does not), which is the client's to fix.
 */
export function asGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof RangeError && err.message.includes('call stack')) {
    return new GatewayError(
      'invalid_request',
      'The request body is nested too deeply to process: JSON nested thousands of levels deep. Flatten it (a tool schema, say).',
      {
        code: 'body_too_deep',
      },
    );
  }
  return new GatewayError('internal', 'Internal gateway error; see the gateway log for details.', {
    code: 'internal_error',
  });
}

/** A client's request its format does not allow: a 400 naming the field at fault. */
export function invalidRequest(message: string, param: string, code = 'invalid_value'): GatewayError {
  return new GatewayError('invalid_request', message, { param, code });
}

/** The upstream sent something that is not what its format says (bad JSON, a missing field). */
export function upstreamMalformed(what: string): GatewayError {
  return new GatewayError('upstream_error', `Upstream error: ${what}`, { code: 'upstream_malformed' });
}

/** An error the upstream reported inside a stream it had already started. */
export function upstreamStreamError(message: string | undefined, overloaded = false): GatewayError {
  return new GatewayError(
    overloaded ? 'upstream_unavailable' : 'upstream_error',
    `Upstream error during the stream: ${message ?? 'unknown'}`,
    {
      code: 'upstream_stream_error',
    },
  );
}
