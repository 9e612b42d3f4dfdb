import type { GatewayError } from '../../core/errors.js';
import { retryHeaders, type EncodedError } from '../../core/format.js';

/** `error.type` per HTTP status, as the Anthropic SDKs map them to their typed errors (docs/protocols.md §2). */
const TYPES = new Map<number, string>([
  [400, 'invalid_request_error'],
  [401, 'authentication_error'],
  [402, 'billing_error'],
  [403, 'permission_error'],
  [404, 'not_found_error'],
  [413, 'request_too_large'],
  [429, 'rate_limit_error'],
  [500, 'api_error'],
  [502, 'api_error'],
  // Anthropic says "overloaded" with 529; the status stays 503 (the SDKs retry every 5xx), the type tells the client why.
  [503, 'overloaded_error'],
  [504, 'timeout_error'],
  [529, 'overloaded_error'],
]);

export function anthropicErrorType(status: number): string {
  return TYPES.get(status) ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Anthropic's error shape, `{type:"error", error:{type, message}}`, with the retry headers the SDKs read. */
export function encodeError(err: GatewayError): EncodedError {
  return {
    status: err.status,
    headers: retryHeaders(err),
    body: { type: 'error', error: { type: anthropicErrorType(err.status), message: err.message } },
  };
}
