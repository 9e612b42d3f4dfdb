/**
 * A Gemini error answer (`{error:{code, message, status, details}}`) → GatewayError. Two Gemini
 * habits need more than the HTTP status (docs/protocols.md §4):
 * - An invalid API key is a 400 INVALID_ARGUMENT with an ErrorInfo of reason API_KEY_INVALID. It is
 *   the line's credential that is wrong, not the client's request, so it is reported as such.
 * - A 429 says when to retry in a RetryInfo detail (`retryDelay:"7s"`), often without a
 *   retry-after header.
 */
import type { GatewayError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import { upstreamStatusError } from '../../upstream/errors.js';

function details(error: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(error.details) ? error.details.filter(isObject) : [];
}

const typeOf = (d: Record<string, unknown>): string => (typeof d['@type'] === 'string' ? d['@type'] : '');

/** `status` is the HTTP status (or the `code` of an error inside a 200 or a stream); `retryAfter` the header, if any. */
export function fromError(status: number, body: unknown, retryAfter?: string): GatewayError {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  const message = typeof error.message === 'string' ? error.message : undefined;
  const ds = details(error);
  if (status === 400 && ds.some((d) => typeOf(d).endsWith('google.rpc.ErrorInfo') && d.reason === 'API_KEY_INVALID')) {
    return upstreamStatusError(401, message, undefined);
  }
  const delay = ds.find((d) => typeOf(d).endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const seconds = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined;
  return upstreamStatusError(status, message, retryAfter ?? seconds);
}
