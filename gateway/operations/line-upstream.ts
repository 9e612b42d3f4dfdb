/**
 * Asking a line's upstream for its model list: `test` (is it reachable, is the key good), the
 * ids it serves, and what the list says of each model (for imports and local servers).
 */
import { authHeaders } from '../core/auth.js';
import type { ListedModel } from '../core/format.js';
import { endpoint } from '../upstream/client.js';
import { fetchFailure } from '../upstream/errors.js';
import { maskDecoded } from '../upstream/mask.js';
import { outboundGet } from '../upstream/outbound.js';
import { wireFormat } from '../wire/index.js';
import type { Gateway } from '../compose/gateway.js';
import type { LineRecord } from '../store/types.js';
import { AdminError, type LineTestView } from '../contract/admin/index.js';
import { findLine } from './lines.js';

/** The largest model list read: OpenRouter's, the longest known, is under 1 MB. */
export const MAX_MODEL_LIST_BYTES = 8 * 1024 * 1024;
/**
 * The most entries read from one model list. The longest real lists (OpenRouter, Hugging Face's
 * router) hold hundreds to a few thousand; a longer one is refused whole, with its count, rather
 * than cut at an arbitrary entry the user never sees, so a hostile upstream's 100k ids cannot
 * stall the gateway or fill the config.
 */
export const MAX_LISTED_MODELS = 10_000;
/** Of an error answer, only the start is read into the message (it is masked, then cut to 300). */
const ERROR_TEXT_CHARS = 16 * 1024;

/** Asks the upstream for its model list: free, and it proves the URL and the credential. */
async function fetchModels(
  g: Gateway,
  line: LineRecord,
  given?: { credential: string | undefined },
): Promise<{ status: number; models: ListedModel[]; latencyMs: number; message: string }> {
  const side = wireFormat(line.protocol)?.upstream;
  if (!side)
    throw new AdminError(
      400,
      'unsupported_protocol',
      `The upstream protocol "${line.protocol}" has no wire format in this build.`,
    );
  const credential = given ? given.credential : await g.lines.credentialFor(line);
  const secrets = credential === undefined ? [] : [credential];
  const url = endpoint(line.baseUrl, side.models.path);
  const started = performance.now();
  let res;
  try {
    // The line's base URL is the user's own choice (a local server included); no redirect is
    // followed with its credential, and the list is read up to a bound (upstream/outbound.ts).
    res = await outboundGet(url, {
      headers: {
        accept: 'application/json',
        'user-agent': 'Tollgate',
        ...(side.models.headers ?? {}),
        ...(credential === undefined ? {} : authHeaders(line.auth ?? side.auth, credential)),
      },
      credentialed: credential !== undefined,
      maxBytes: MAX_MODEL_LIST_BYTES,
      ca: g.upstream.trustedCa,
      timeoutMs: g.lines.timeoutsFor(line).connectMs + 10_000,
      publicOnly: false,
      maxRedirects: 3,
    });
  } catch (err) {
    // An untrusted certificate is named as such (the CA setting is the cure); any text is masked.
    throw new Error(maskDecoded(fetchFailure(err), secrets));
  }
  const latencyMs = Math.round(performance.now() - started);
  if (res.status >= 400) {
    const detail = maskDecoded(res.text.slice(0, ERROR_TEXT_CHARS), secrets).slice(0, 300);
    return { status: res.status, models: [], latencyMs, message: `HTTP ${res.status}: ${detail}` };
  }
  try {
    return { status: res.status, models: side.models.list(JSON.parse(res.text)), latencyMs, message: 'ok' };
  } catch {
    return { status: res.status, models: [], latencyMs, message: 'the answer is not a model list' };
  }
}

/**
 * A Test of the line: is its upstream reachable, is the key good. The result is recorded in the
 * line's health (routing/health.ts), so the console and `lines list` show a failed test, not a
 * healthy line, until a later test passes or a request through the line is answered.
 */
export async function testLine(g: Gateway, name: string): Promise<LineTestView> {
  const line = findLine(g, name);
  const started = performance.now();
  let view: LineTestView;
  try {
    const r = await fetchModels(g, line);
    view = {
      ok: r.status < 400,
      status: r.status,
      latencyMs: r.latencyMs,
      message: r.status < 400 ? `reachable; ${r.models.length} models listed` : r.message,
    };
  } catch (err) {
    view = {
      ok: false,
      status: null,
      latencyMs: Math.round(performance.now() - started),
      message: fetchFailure(err),
    };
  }
  g.health.tested(line.id, { ok: view.ok, status: view.status, message: view.message, at: Date.now() });
  return view;
}

export async function upstreamModels(g: Gateway, name: string): Promise<string[]> {
  return (await listedModels(g, findLine(g, name))).map((m) => m.id);
}

/**
 * What the line's upstream lists, with what the list says of each model; a 502 when it does not
 * answer with one. `given` asks with that credential instead of the line's (a line not added yet).
 */
export async function listedModels(
  g: Gateway,
  line: LineRecord,
  given?: { credential: string | undefined },
): Promise<ListedModel[]> {
  let r;
  try {
    r = await fetchModels(g, line, given);
  } catch (err) {
    throw new AdminError(502, 'upstream_unreachable', `The line "${line.name}" did not answer: ${fetchFailure(err)}`);
  }
  if (r.status >= 400) throw new AdminError(502, 'upstream_error', `The line "${line.name}" answered ${r.message}`);
  if (r.models.length > MAX_LISTED_MODELS)
    throw new AdminError(
      502,
      'model_list_too_long',
      `The line "${line.name}" lists ${r.models.length.toLocaleString('en-US')} models, more than the ${MAX_LISTED_MODELS.toLocaleString('en-US')} Tollgate reads from one list; nothing was read from it. ` +
        'Name the models you want on the line itself (models, with addModels for ids the catalogue lacks).',
    );
  return r.models;
}
