import type { GatewayError } from '../../core/errors.js';
import { retryHeaders, type EncodedError } from '../../core/format.js';
import type { GeminiErrorBody } from './types.js';

/**
 * gRPC status names per HTTP status, as Google's APIs send them (docs/protocols.md §4; the mapping is
 * google.rpc.Code's). Two are Tollgate's choice:
 * - 402 (wallet or key quota cannot pay): Google never sends 402. FAILED_PRECONDITION is Google's
 *   "billing is not set up" status: the user must act, and no Google client retries it, whereas
 *   RESOURCE_EXHAUSTED reads as a rate limit to clients that retry by status name.
 * - 502 (the upstream answered with a failure): INTERNAL, not UNAVAILABLE. UNAVAILABLE promises that
 *   a retry may work; a malformed upstream answer or a rejected line credential will not.
 */
const STATUS = new Map<number, string>([
  [400, 'INVALID_ARGUMENT'],
  [401, 'UNAUTHENTICATED'],
  [402, 'FAILED_PRECONDITION'],
  [403, 'PERMISSION_DENIED'],
  [404, 'NOT_FOUND'],
  [408, 'DEADLINE_EXCEEDED'],
  [409, 'ABORTED'],
  [413, 'INVALID_ARGUMENT'],
  [429, 'RESOURCE_EXHAUSTED'],
  [499, 'CANCELLED'],
  [500, 'INTERNAL'],
  [501, 'UNIMPLEMENTED'],
  [502, 'INTERNAL'],
  [503, 'UNAVAILABLE'],
  [504, 'DEADLINE_EXCEEDED'],
]);

export function grpcStatus(status: number): string {
  return STATUS.get(status) ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/**
 * Google's error body. `details` carries an ErrorInfo with Tollgate's error code, and with a retry
 * hint Google's RetryInfo, which Gemini CLI reads to time its retry of a 429.
 */
export function errorBody(err: GatewayError): GeminiErrorBody {
  const details: Record<string, unknown>[] = [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code, domain: 'tollgate' },
  ];
  if (err.retryAfter !== undefined)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${err.retryAfter}s` });
  return { error: { code: err.status, message: err.message, status: grpcStatus(err.status), details } };
}

export function encodeError(err: GatewayError): EncodedError {
  return { status: err.status, headers: retryHeaders(err), body: errorBody(err) };
}

/** An error ending a stream that has started: one more `data:` chunk with the error body (or, in a JSON-array stream, one more element). */
export function encodeStreamError(err: GatewayError, sse: boolean): string {
  const body = JSON.stringify(errorBody(err));
  return sse ? `data: ${body}\n\n` : body;
}
