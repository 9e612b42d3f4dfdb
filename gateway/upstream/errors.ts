import { errors as undiciErrors } from 'undici';
import { GatewayError } from '../core/errors.js';
import type { UpstreamResponse } from './client.js';
import { decodeEscapes, maskJsonValue, maskSecrets } from './mask.js';

export { decodeEscapes, maskDecoded, maskError, maskJsonValue, maskSecrets } from './mask.js';

/** Reasons an exchange is aborted from our side, carried as the AbortSignal's reason. */
export class ClientClosedError extends Error {
  constructor() {
    super('client closed the connection');
  }
}
export class TotalTimeoutError extends Error {
  constructor(ms: number) {
    super(`upstream took longer than ${ms} ms in total`);
  }
}

/** The upstream was silent too long: before the first bytes of its answer, or between two chunks. */
export class UpstreamTimeoutError extends Error {
  private constructor(
    readonly ms: number,
    readonly code: 'upstream_timeout' | 'upstream_idle_timeout',
    message: string,
  ) {
    super(message);
  }

  static firstByte(ms: number, stream: boolean): UpstreamTimeoutError {
    const what = stream ? 'no event of its stream' : 'no answer';
    const flag = stream ? '--first-byte-timeout' : '--non-streaming-first-byte-timeout';
    return new UpstreamTimeoutError(
      ms,
      'upstream_timeout',
      `Upstream timeout: the upstream sent ${what} within ${seconds(ms)} (the line's first-byte timeout; "tollgate lines update NAME ${flag}" changes it).`,
    );
  }

  static idle(ms: number): UpstreamTimeoutError {
    return new UpstreamTimeoutError(
      ms,
      'upstream_idle_timeout',
      `Upstream timeout: the upstream stopped sending in the middle of its answer for ${seconds(ms)} (the line's idle timeout).`,
    );
  }
}

/** A non-streaming answer larger than Tollgate reads (upstream/client.ts). */
export class AnswerTooLargeError extends GatewayError {
  constructor(maxBytes: number) {
    super(
      'upstream_error',
      `Upstream error: the answer is larger than ${maxBytes / 1024 / 1024} MiB, more than Tollgate reads from an upstream.`,
      { code: 'upstream_too_large' },
    );
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A wire format's own reading of its upstream's error answers. */
export type ErrorReader = (status: number, body: unknown, retryAfter: string | undefined) => GatewayError;

/** How much of an upstream's error answer is read: enough for any real error, never a huge body. */
const ERROR_BODY_BYTES = 16 * 1024;

async function readPrefix(res: UpstreamResponse, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= maxBytes) break;
    }
  } finally {
    res.body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/**
 * Reads an upstream error answer and maps it to what the client is told (a provider may read it
 * itself). `secrets` are the line's credentials, masked out of the text first.
 */
export async function readUpstreamError(
  res: UpstreamResponse,
  fromError?: ErrorReader,
  secrets: readonly string[] = [],
): Promise<GatewayError> {
  let message: string | undefined;
  let parsed: unknown;
  try {
    const raw = maskSecrets(await readPrefix(res, ERROR_BODY_BYTES), secrets);
    let decoded: unknown;
    try {
      decoded = JSON.parse(raw);
    } catch {
      // Not JSON: the text is the message, its escapes decoded before it is masked (mask.ts).
    }
    if (decoded === undefined) {
      message = maskSecrets(decodeEscapes(raw), secrets).slice(0, 4000);
    } else {
      // Masked after decoding, so that `\u0073k-…` or `\/` inside a key cannot slip past.
      parsed = maskJsonValue(decoded, secrets);
      const p = parsed as { error?: { message?: string } | string; message?: string };
      const text = JSON.stringify(parsed);
      message = typeof p?.error === 'string' ? p.error : (p?.error?.message ?? p?.message ?? text.slice(0, 4000));
      if (typeof message !== 'string') message = text.slice(0, 4000);
    }
  } catch {
    // The body could not be read; the status alone must do.
  }
  const header = res.headers['retry-after'];
  const retryAfter = Array.isArray(header) ? header[0] : header;
  if (fromError && parsed !== undefined) return fromError(res.status, parsed, retryAfter);
  return upstreamStatusError(res.status, message, retryAfter);
}

/** OpenSSL's verdicts on a certificate chain that no trusted authority signed (what TLS inspection causes). */
const UNTRUSTED_CERT = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
]);

/** The words for a certificate the gateway does not trust, naming the setting that fixes it behind TLS inspection. */
export function untrustedCertificate(err: unknown): string | undefined {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  if (code === undefined || !UNTRUSTED_CERT.has(code)) return undefined;
  return `the upstream's TLS certificate is not signed by an authority the gateway trusts (${code}); behind a TLS-inspecting proxy, add its CA in Settings (CA file, or the system store)`;
}

/** A failed fetch in words: undici's "fetch failed" says nothing, its cause says what failed. */
export function fetchFailure(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause;
  return (
    untrustedCertificate(err) ??
    (cause?.message ? `${(err as Error).message}: ${cause.message}` : (err as Error).message)
  );
}

/** Maps a network-level failure (before or during the body) to what the client is told. */
export function upstreamFailure(
  err: unknown,
  signal?: { readonly aborted: boolean; readonly reason: unknown },
): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof ClientClosedError)
    return new GatewayError('invalid_request', 'Client closed the connection.', { code: 'client_closed', status: 499 });
  const reason: unknown = signal?.aborted ? signal.reason : undefined;
  if (reason instanceof TotalTimeoutError)
    return new GatewayError('upstream_timeout', `Upstream timeout: ${reason.message}.`, { code: 'upstream_timeout' });
  if (reason instanceof ClientClosedError)
    return new GatewayError('invalid_request', 'Client closed the connection.', { code: 'client_closed', status: 499 });
  if (err instanceof UpstreamTimeoutError) return new GatewayError('upstream_timeout', err.message, { code: err.code });
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('upstream_timeout', 'Upstream timeout: could not connect to the upstream in time.', {
      code: 'upstream_connect_timeout',
    });
  }
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'EAI_AGAIN'
  ) {
    return new GatewayError('upstream_unavailable', `Upstream unavailable: cannot connect to the upstream (${code}).`, {
      code: 'upstream_unreachable',
    });
  }
  const untrusted = untrustedCertificate(err);
  if (untrusted)
    return new GatewayError('upstream_error', `Upstream error: ${untrusted}.`, { code: 'upstream_connection_error' });
  return new GatewayError(
    'upstream_error',
    `Upstream error: the connection to the upstream failed (${code ?? (err as Error).message}).`,
    {
      code: 'upstream_connection_error',
    },
  );
}

/**
 * Maps an upstream HTTP error status to the client's status. The upstream's own message is kept
 * where it helps the client (a 400 about its request) but never when it concerns the line's
 * credential, which is Tollgate's business, not the client's.
 */
export function upstreamStatusError(
  status: number,
  upstreamMessage: string | undefined,
  retryAfterHeader: string | undefined,
): GatewayError {
  const detail = upstreamMessage ? `: ${upstreamMessage.slice(0, 500)}` : '';
  if (status === 429) {
    const retryAfter = parseRetryAfter(retryAfterHeader) ?? 1;
    return new GatewayError('rate_limit', `Upstream rate limit${detail}`, {
      code: 'upstream_rate_limited',
      retryAfter,
    });
  }
  if (status === 401 || status === 403) {
    return new GatewayError(
      'upstream_error',
      `The upstream rejected this line's credential (HTTP ${status}). Check the line's API key.`,
      {
        code: 'upstream_auth_failed',
      },
    );
  }
  if (status === 408 || status === 504)
    return new GatewayError('upstream_timeout', `Upstream timeout (HTTP ${status})${detail}`, {
      code: 'upstream_timeout',
    });
  if (status === 503 || status === 529)
    return new GatewayError('upstream_unavailable', `Upstream unavailable (HTTP ${status})${detail}`, {
      code: 'upstream_unavailable',
    });
  if (status >= 500)
    return new GatewayError('upstream_error', `Upstream error (HTTP ${status})${detail}`, { code: 'upstream_error' });
  if (status === 404) {
    return new GatewayError(
      'upstream_error',
      `The upstream answered 404${detail}. Check the line's base URL and model id.`,
      { code: 'upstream_not_found' },
    );
  }
  return new GatewayError('invalid_request', `Upstream rejected the request (HTTP ${status})${detail}`, {
    code: 'upstream_rejected',
    status,
  });
}

/**
 * The longest retry-after taken from an upstream, in seconds (10 minutes). It holds the line and is
 * passed on to the client; an upstream asking for more (a daily quota, a date in 2099, a garbled
 * number) is simply tried again after this.
 */
export const MAX_RETRY_AFTER_S = 600;

/** retry-after in seconds or as an HTTP date, between 1 s and MAX_RETRY_AFTER_S. */
function parseRetryAfter(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const secs = Number(v);
  if (!Number.isNaN(secs) && secs >= 0) return Math.min(MAX_RETRY_AFTER_S, Math.ceil(secs));
  const date = Date.parse(v);
  return Number.isNaN(date)
    ? undefined
    : Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((date - Date.now()) / 1000)));
}
