import { isUtf8 } from 'node:buffer';
import { GatewayError } from './errors.js';

/** The longest part of a client's own value (a model id, a path) repeated back in an error message. */
export const ECHO_CHARS = 80;

/**
 * A client's value as an error message repeats it: whole when short, else its first ECHO_CHARS
 * characters and its length. A 2 MB model id must not come back as a 2 MB error (or a ledger note).
 */
export function echo(value: string): string {
  if (value.length <= ECHO_CHARS) return value;
  return `${value.slice(0, ECHO_CHARS)}… (${value.length} characters)`;
}

/**
 * The byte offset of the first byte that is not well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or -1 when the whole buffer is. Decoding would replace such
 * bytes with U+FFFD and forward a prompt the client did not send, so the request is refused instead.
 */
export function invalidUtf8Offset(buf: Uint8Array): number {
  if (isUtf8(buf)) return -1;
  let i = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    // The first continuation byte has the narrowed range; the others any of 0x80–0xBF.
    for (let k = 1; k <= n; k++) {
      const c = buf[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** The one value of a query parameter; a repeated one (`?key=A&key=B`) is ambiguous, so refused. */
export function singleQuery(query: unknown): GatewayError | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  for (const [name, v] of Object.entries(query)) {
    if (Array.isArray(v))
      return new GatewayError(
        'invalid_request',
        `The query parameter "${name.slice(0, 40)}" is given ${v.length} times; give it once.`,
        { code: 'repeated_query_parameter', param: name.slice(0, 40) },
      );
  }
  return undefined;
}
