import type { GatewayError } from '../../core/errors.js';
import { retryHeaders, type EncodedError } from '../../core/format.js';

/** OpenAI's error shape, `{error:{message,type,param,code}}`, with the type and code its SDKs and tools expect. */
export function encodeError(err: GatewayError): EncodedError {
  let type = 'invalid_request_error';
  let code: string | null = err.code;
  switch (err.kind) {
    case 'authentication':
      code = 'invalid_api_key';
      break;
    case 'insufficient_funds':
      type = 'insufficient_quota';
      code = 'insufficient_quota';
      break;
    case 'rate_limit':
      type = 'requests';
      code = 'rate_limit_exceeded';
      break;
    case 'upstream_error':
    case 'upstream_unavailable':
    case 'upstream_timeout':
    case 'internal':
      type = 'server_error';
      break;
    default:
      break;
  }
  return {
    status: err.status,
    headers: retryHeaders(err),
    body: { error: { message: err.message, type, param: err.param ?? null, code } },
  };
}

/** A failure after a stream has started: OpenAI sends a `data: {"error":…}` chunk, which the SDKs raise. */
export function encodeStreamError(err: GatewayError): string {
  return `data: ${JSON.stringify(encodeError(err).body)}\n\n`;
}
