/**
 * Masking credentials out of what an upstream sends back in an error: an error body at any status,
 * or an in-band error event in the middle of a stream. Both reach the client and the ledger.
 *
 * The text is masked after it is decoded: an upstream that echoes the request inside a JSON string
 * may escape it (`\u0073k-…`, or PHP's `\/`), and a mask run only on the raw text would miss the
 * credential that the client's JSON parser then restores.
 */
import { GatewayError } from '../core/errors.js';

/**
 * What a credential looks like in text an upstream echoes back: auth header values (the prefix,
 * group 1, is kept), then known key shapes. The auth scheme goes first, so that an echoed
 * `"authorization": "Bearer …"` loses the token, not just the word Bearer.
 */
const SECRET_SHAPES: [RegExp, string][] = [
  [/\b((?:bearer|basic)\s+)[^\s"'\\,;]+/gi, '$1[redacted]'],
  [
    /((?:x-api-key|x-goog-api-key|api-key|authorization|proxy-authorization|cookie)\\?"?\s*[:=]\s*\\?"?)[^\s"'\\,;}]+/gi,
    '$1[redacted]',
  ],
  [/\bsk-[A-Za-z0-9_-]{6,}/g, '[redacted]'],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, '[redacted]'],
  [/\btga_[A-Za-z0-9_-]{8,}/g, '[redacted]'],
];

/** Object keys whose value is a credential whatever it looks like (an echoed header map). */
const SECRET_KEYS = /^(?:x-api-key|x-goog-api-key|api-key|authorization|proxy-authorization|cookie|key|api_key)$/i;

/**
 * A text with every credential in it replaced by "[redacted]": the line's own key wherever it
 * appears (some upstreams echo the request, headers and all, in any error) and anything shaped
 * like a key or an auth header.
 */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[redacted]');
  for (const [shape, by] of SECRET_SHAPES) out = out.replace(shape, by);
  return out;
}

/** JSON's string escapes (`\uXXXX`, `\/` and the rest) decoded, for text that is not whole JSON. */
export function decodeEscapes(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(
    /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g,
    (_m, hex: string | undefined, ch: string | undefined) => {
      if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
      return ch === 'b' ? '\b' : ch === 'f' ? '\f' : ch === 'n' ? '\n' : ch === 'r' ? '\r' : ch === 't' ? '\t' : ch!;
    },
  );
}

/** A decoded JSON value with every string in it (keys too) masked; a credential-named key loses its value. */
export function maskJsonValue(value: unknown, secrets: readonly string[] = []): unknown {
  if (typeof value === 'string') return maskSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((v) => maskJsonValue(v, secrets));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = maskSecrets(k, secrets);
    // defineProperty, not assignment: a key named __proto__ stays a plain key.
    Object.defineProperty(out, key, {
      value: SECRET_KEYS.test(k) && typeof v === 'string' ? '[redacted]' : maskJsonValue(v, secrets),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A text that may be JSON (an SSE event's data, an error body), masked after decoding. JSON comes
 * back re-encoded; anything else has its escapes decoded, then is masked. A value nested too deep
 * to walk is masked as decoded text.
 */
export function maskDecoded(text: string, secrets: readonly string[] = []): string {
  const raw = maskSecrets(text, secrets);
  try {
    return JSON.stringify(maskJsonValue(JSON.parse(raw), secrets));
  } catch {
    return maskSecrets(decodeEscapes(raw), secrets);
  }
}

/** The same error with its message masked (after decoding): what the client and the ledger get. */
export function maskError(err: GatewayError, secrets: readonly string[] = []): GatewayError {
  const message = maskSecrets(decodeEscapes(maskSecrets(err.message, secrets)), secrets);
  if (message === err.message) return err;
  return new GatewayError(err.kind, message, {
    status: err.status,
    code: err.code,
    retryAfter: err.retryAfter,
    param: err.param,
  });
}
