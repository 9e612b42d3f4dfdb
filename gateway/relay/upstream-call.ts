import { randomUUID } from 'node:crypto';
import { authHeaders, type AuthStyle } from '../core/auth.js';
import type { UpstreamSide } from '../core/format.js';
import type { LineRecord } from '../store/types.js';
import { endpoint, type CallSignal, type UpstreamResponse } from '../upstream/client.js';
import { readUpstreamError } from '../upstream/errors.js';
import { rateLimitHeaders } from '../routing/plan-windows.js';
import type { LinePool, Upstream } from './ports.js';

/**
 * This process's id, sent upstream with every request: a request that comes back carrying it went
 * from this gateway to itself (a line whose base URL reaches the gateway by a name the admin check
 * cannot see), and the request guard (gateway/http/guard.ts) refuses it instead of forwarding it again
 * without end.
 */
export const INSTANCE_HEADER = 'x-tollgate-instance';
export const INSTANCE_ID = randomUUID();

/** An upstream's answer, and the credentials to mask out of any error it carries (upstream/mask.ts). */
export interface UpstreamAnswer extends UpstreamResponse {
  secrets: readonly string[];
  /** The answer's rate-limit and plan-window headers (routing/plan-windows.ts), passed on to the client. */
  rateLimits: Record<string, string>;
}

export interface UpstreamCallDeps {
  lines: LinePool;
  upstream: Upstream;
}

/**
 * The URLs requests went to, by base URL and path: a line sends every request of one format to the
 * same one or two, and parsing a URL and its query on each was 1.4 % of a pass-through's CPU. The
 * upstream client only reads them. Bounded, for paths that name a model (Gemini's).
 */
const urls = new Map<string, URL>();
const URLS_KEPT = 1_000;

function upstreamUrl(baseUrl: string, path: string): URL {
  const key = `${baseUrl}\u0000${path}`;
  let url = urls.get(key);
  if (url === undefined) {
    url = endpoint(baseUrl, path);
    if (urls.size >= URLS_KEPT) urls.clear();
    urls.set(key, url);
  }
  return url;
}

/** The headers of a line's requests, as `requestHeaders` built them for one credential and style. */
interface LineHeaders {
  credential: string | undefined;
  style: AuthStyle;
  json: Readonly<Record<string, string>>;
  stream: Readonly<Record<string, string>>;
}

/**
 * The headers every request of a line sends when its format adds none of its own (the
 * pass-through of three formats, the translation to two): built once per line record and
 * credential instead of from three spreads per request. undici only reads them. A line edited or a
 * credential changed gets new ones (the record is replaced; the credential and style are compared).
 */
const lineHeaders = new WeakMap<LineRecord, LineHeaders>();

function requestHeaders(
  line: LineRecord,
  style: AuthStyle,
  credential: string | undefined,
  own: Record<string, string>,
  stream: boolean,
): Record<string, string> {
  // Later names win, as in { defaults, ...own, instance, ...auth }; assigned one by one, as a spread
  // followed by more properties is V8's slow path (respond.ts answerHeaders).
  const build = (streaming: boolean): Record<string, string> => {
    const out: Record<string, string> = {
      'content-type': 'application/json',
      accept: streaming ? 'text/event-stream' : 'application/json',
      'user-agent': 'Tollgate',
    };
    for (const k in own) out[k] = own[k]!;
    out[INSTANCE_HEADER] = INSTANCE_ID;
    if (credential !== undefined) {
      const auth = authHeaders(style, credential);
      for (const k in auth) out[k] = auth[k]!;
    }
    return out;
  };
  for (const _ in own) return build(stream);
  let kept = lineHeaders.get(line);
  if (kept === undefined || kept.credential !== credential || kept.style !== style) {
    kept = { credential, style, json: Object.freeze(build(false)), stream: Object.freeze(build(true)) };
    lineHeaders.set(line, kept);
  }
  return stream ? kept.stream : kept.json;
}

/**
 * The request body as bytes of its own, made at once: undici sends bytes as they are, where it would copy a string
 * into a slice of Node's shared 8 KB pool, and keep both the string and the slice (with its whole slab) for as long
 * as the request waits for its answer (docs/performance.md, "Waits and what a request holds"). A pass-through's
 * unchanged body is already the client's bytes and goes as it came.
 */
function bodyBytes(body: string | Uint8Array): Uint8Array {
  if (typeof body !== 'string') return body;
  const text = body;
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/**
 * Sends one attempt's request to its line: JSON headers, the format's own headers, and the
 * line's credential in the style its preset names (else the format's usual one). An error
 * status becomes the GatewayError the client is told, read by the format where it knows better.
 * Not async itself: the body's text is turned into bytes here, so that no suspended frame keeps the
 * text while the request waits for its answer.
 */
export function callUpstream(
  deps: UpstreamCallDeps,
  line: LineRecord,
  side: UpstreamSide,
  req: { path: string; headers: Record<string, string>; body: string | Uint8Array },
  stream: boolean,
  signal: CallSignal,
): Promise<UpstreamAnswer> {
  return send(deps, line, side, req.path, req.headers, bodyBytes(req.body), stream, signal);
}

function send(
  deps: UpstreamCallDeps,
  line: LineRecord,
  side: UpstreamSide,
  path: string,
  own: Record<string, string>,
  body: Uint8Array,
  stream: boolean,
  signal: CallSignal,
): Promise<UpstreamAnswer> {
  // The credential is usually at hand (the environment, a key the keychain gave before): then no
  // promise's turn is spent on it, only when the keychain is asked.
  let credential: string | undefined | Promise<string | undefined>;
  try {
    credential = deps.lines.credentialFor(line);
  } catch (err) {
    return Promise.reject(err);
  }
  return credential instanceof Promise
    ? credential.then((c) => sendWith(deps, line, side, path, own, body, stream, signal, c))
    : sendWith(deps, line, side, path, own, body, stream, signal, credential);
}

async function sendWith(
  deps: UpstreamCallDeps,
  line: LineRecord,
  side: UpstreamSide,
  path: string,
  own: Record<string, string>,
  body: Uint8Array,
  stream: boolean,
  signal: CallSignal,
  credential: string | undefined,
): Promise<UpstreamAnswer> {
  const headers = requestHeaders(line, line.auth ?? side.auth, credential, own, stream);
  const res = await deps.upstream.send({
    lineId: line.id,
    url: upstreamUrl(line.baseUrl, path),
    headers,
    body,
    stream,
    timeouts: deps.lines.timeoutsFor(line),
    signal,
  });
  // Every answer, refusals too: a 429 carries the windows that explain it.
  // Read once: the line's plan windows and the headers the client gets are the same ones.
  const rateLimits = rateLimitHeaders(res.headers);
  deps.lines.planWindows.remember(line.id, rateLimits, Date.now());
  const secrets = credential === undefined ? [] : [credential];
  if (res.status >= 400) throw await readUpstreamError(res, side.codec.fromError, secrets);
  return { status: res.status, headers: res.headers, body: res.body, secrets, rateLimits };
}
