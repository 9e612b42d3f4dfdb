import type { TargetLine } from './codec.js';
import type { GatewayError } from './errors.js';
import type { Quirks } from './quirks.js';
import type { SseEvent } from './sse.js';
import { unbindRaw } from './signatures.js';
import type { Usage } from './usage.js';

/**
 * A format's pass-through path: the same format on both sides, so the client's request goes up
 * nearly as it came (usually only `model` rewritten) and the answer comes back byte for byte,
 * read on the way by a tap. The relay runs it (relay/passthrough.ts).
 */
export interface Passthrough {
  /**
   * The upstream request for a line that knows the model as `upstreamModel`, with the line's
   * quirks. `outputLimit`, when given, is an output limit Tollgate sets because the client set none
   * and the wallet or quota cannot pay for the model's maximum (billing/billing.ts): the format puts
   * it in its own field. Signatures bound to `line` are unbound and those bound to another line
   * left out (core/signatures.ts). `notes` say what was changed besides the model.
   */
  request(
    upstreamModel: string,
    quirks?: Quirks,
    outputLimit?: number,
    line?: TargetLine,
  ): { path: string; headers: Record<string, string>; body: string; notes?: string[] };
  /** Follows the answer stream: usage, end, in-band errors. */
  tap(): StreamTap;
  /** A whole JSON answer: its usage, if it carries one, and the text it produced (counted when it does not). */
  readAnswer(parsed: unknown): { usage: Usage | undefined; produced: string };
  /**
   * Where the answer names its model: the path in a whole JSON answer and in a stream event.
   * The relay puts the model the client asked for there (docs/protocols.md §6.20), as every
   * translated path does.
   */
  modelField: { answer: readonly string[]; event: readonly string[] };
  /**
   * Binds the signatures of an answer to the line that made it (core/signatures.ts), so the
   * client's history says where each came from. `answer` changes a whole JSON answer in place and
   * says whether it changed anything; `event` gives a stream event's data, the same string when it
   * holds no signature (checked cheaply: most events are not parsed).
   */
  signatures?: {
    answer(parsed: unknown, lineId: string): boolean;
    event(data: string, lineId: string): string;
  };
}

/**
 * `data` (a JSON answer or one stream event) with the string at `path` set to `model`; the same
 * string, not re-serialised, when it has no such field or already says `model`.
 */
export function withModel(data: string, path: readonly string[], model: string): string {
  const key = path.at(-1);
  if (key === undefined) return data;
  const name = `"${key}"`;
  const at = data.indexOf(name);
  if (at < 0) return data;
  // The usual stream event: the one field of that name already says `model`, so there is nothing
  // to change and no parse per event. Only when nothing else could be that field: no second
  // occurrence of the name, and no \u escape (which could spell the name another way).
  if (
    data.startsWith(`:${JSON.stringify(model)}`, at + name.length) &&
    !data.includes(name, at + name.length) &&
    !data.includes('\\u')
  )
    return data;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return data;
  }
  let node = parsed;
  for (const k of path.slice(0, -1))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[k] : undefined;
  if (typeof node !== 'object' || node === null) return data;
  const holder = node as Record<string, unknown>;
  if (typeof holder[key] !== 'string' || holder[key] === model) return data;
  holder[key] = model;
  return JSON.stringify(parsed);
}

/**
 * withModel for a whole answer already parsed (`parsed` is `data` parsed, and is changed in place):
 * the answer is not parsed a second time. Whether the model field was set, so that the caller
 * serialises `parsed` again only when something changed.
 */
export function setModel(parsed: unknown, path: readonly string[], model: string): boolean {
  const key = path.at(-1);
  if (key === undefined) return false;
  let node = parsed;
  for (const k of path.slice(0, -1))
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[k] : undefined;
  if (typeof node !== 'object' || node === null) return false;
  const holder = node as Record<string, unknown>;
  if (typeof holder[key] !== 'string' || holder[key] === model) return false;
  holder[key] = model;
  return true;
}

/**
 * The body to send upstream on the pass-through path: the client's own bytes when the changes
 * are already there (the common case: no model mapping), so nothing is re-serialised; otherwise
 * a copy with the changes applied. `unbound` names a field whose new value in `changes` differs
 * from the client's only in signatures bound to `line`, unbound (core/signatures.ts): when nothing
 * else changes, the client's bytes are unbound in place instead of serialised again. A new model
 * id alone (an alias or a line's model map) is written into the client's text too (withTopModel),
 * where that is certain to be the body's one `model`: serialising a coding agent's 400 KB history
 * again for a different model id took about a millisecond.
 */
export function upstreamBody(
  rawBody: string,
  body: Record<string, unknown>,
  changes: Record<string, unknown>,
  unbound?: { field: string; line: string },
): string {
  let model: string | undefined;
  for (const k in changes) {
    const v = changes[k];
    if (k === unbound?.field || body[k] === v) continue;
    if (k === 'model' && typeof v === 'string' && typeof body.model === 'string') model = v;
    else if (JSON.stringify(body[k]) !== JSON.stringify(v)) return JSON.stringify({ ...body, ...changes });
  }
  const text = unbound ? unbindRaw(rawBody, unbound.line) : rawBody;
  if (model === undefined) return text;
  return withTopModel(text, body.model as string, model) ?? JSON.stringify({ ...body, ...changes });
}

/**
 * `text` (a JSON object whose top-level `model` is the string `from`) with that value replaced by
 * `to`, byte for byte otherwise; undefined when that cannot be certain from the text alone. Certain
 * when the text has no `\u` escape (the only escape that could spell the name or the value another
 * way) and exactly one member named `model` at any depth: found as `"model"` followed by a colon,
 * with an even number of backslashes before its opening quote (an odd number makes it text inside
 * another string), its value spelled as JSON.stringify spells `from`. The top-level member is among
 * those found, so the one found is it.
 */
export function withTopModel(text: string, from: string, to: string): string | undefined {
  if (text.includes('\\u')) return undefined;
  let value = -1;
  // Found by `model` and its quotes checked: V8 searches for `"model"` with its quotes about forty times slower.
  for (let at = text.indexOf('model', 1); at >= 0; at = text.indexOf('model', at + 5)) {
    if (text.charCodeAt(at - 1) !== 34 || text.charCodeAt(at + 5) !== 34) continue;
    let backslashes = 0;
    for (let j = at - 2; j >= 0 && text.charCodeAt(j) === 92; j--) backslashes++;
    const colon = skipSpace(text, at + 6);
    if (backslashes % 2 !== 0 || text.charCodeAt(colon) !== 58) continue;
    if (value >= 0) return undefined;
    value = skipSpace(text, colon + 1);
  }
  const old = JSON.stringify(from);
  if (value < 0 || !text.startsWith(old, value)) return undefined;
  return text.slice(0, value) + JSON.stringify(to) + text.slice(value + old.length);
}

/** The index of the first character at or after `i` that is not JSON whitespace. */
function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/**
 * Watches a pass-through stream go by: finds the usage, the end and in-band errors without
 * re-encoding anything. Each wire format has one for its own stream.
 */
export interface StreamTap {
  /** Sees each upstream event; false drops it from the client's stream. Throws SyntaxError on a malformed event. */
  onEvent(ev: SseEvent): boolean;
  /** The upstream's final usage figures, once it sent them; undefined while they may still change. */
  usage(): Usage | undefined;
  /** Prompt figures the upstream reported before the end (billed with the produced output counted when the stream is cut short). */
  promptUsage(): Usage | undefined;
  /** The upstream sent its terminator. */
  complete(): boolean;
  /** The stream is finished in substance but lacks its terminator; returns what to append, or undefined if it is not. */
  repairTail(): string | undefined;
  /** An error the upstream reported in-band. */
  error(): GatewayError | null;
  /** Everything the model produced so far, for counting when no usage comes. */
  produced(): string;
}

/** The common state of the taps: the usage found, whether the terminator came, an in-band error. */
export abstract class BaseStreamTap implements StreamTap {
  protected found: Usage | undefined;
  protected done = false;
  protected failure: GatewayError | null = null;

  abstract onEvent(ev: SseEvent): boolean;
  abstract produced(): string;

  usage(): Usage | undefined {
    return this.found;
  }
  promptUsage(): Usage | undefined {
    return undefined;
  }
  complete(): boolean {
    return this.done;
  }
  repairTail(): string | undefined {
    return undefined;
  }
  error(): GatewayError | null {
    return this.failure;
  }
}
