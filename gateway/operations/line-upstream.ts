/**
 * Asking a line's upstream for its model list: `test` (is it reachable, is the key good), the
 * ids it serves, and what the list says of each model (for imports and local servers).
 */
import { authHeaders } from '../core/auth.js';
import type { ListedModel } from '../core/format.js';
import { endpoint } from '../upstream/client.js';
import { wireFormat } from '../wire/index.js';
import type { Gateway } from '../compose/gateway.js';
import type { LineRecord } from '../store/types.js';
import { AdminError, type LineTestView } from '../contract/admin/index.js';
import { findLine } from './lines.js';

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
  const url = endpoint(line.baseUrl, side.models.path);
  const started = performance.now();
  const res = await fetch(url, {
    headers: {
      accept: 'application/json',
      'user-agent': 'Tollgate',
      ...(side.models.headers ?? {}),
      ...(credential === undefined ? {} : authHeaders(line.auth ?? side.auth, credential)),
    },
    signal: AbortSignal.timeout(g.lines.timeoutsFor(line).connectMs + 10_000),
  });
  const text = await res.text();
  const latencyMs = Math.round(performance.now() - started);
  if (!res.ok)
    return { status: res.status, models: [], latencyMs, message: `HTTP ${res.status}: ${text.slice(0, 300)}` };
  try {
    return { status: res.status, models: side.models.list(JSON.parse(text)), latencyMs, message: 'ok' };
  } catch {
    return { status: res.status, models: [], latencyMs, message: 'the answer is not a model list' };
  }
}

export async function testLine(g: Gateway, name: string): Promise<LineTestView> {
  const line = findLine(g, name);
  const started = performance.now();
  try {
    const r = await fetchModels(g, line);
    return {
      ok: r.status < 400,
      status: r.status,
      latencyMs: r.latencyMs,
      message: r.status < 400 ? `reachable; ${r.models.length} models listed` : r.message,
    };
  } catch (err) {
    return {
      ok: false,
      status: null,
      latencyMs: Math.round(performance.now() - started),
      message: (err as Error).message,
    };
  }
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
    throw new AdminError(
      502,
      'upstream_unreachable',
      `The line "${line.name}" did not answer: ${(err as Error).message}`,
    );
  }
  if (r.status >= 400) throw new AdminError(502, 'upstream_error', `The line "${line.name}" answered ${r.message}`);
  return r.models;
}
