import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { BaseStreamTap, upstreamBody, type Passthrough } from '../../core/passthrough.js';
import { isObject } from '../../core/json.js';
import { isMarked } from '../../core/reasoning.js';
import { bind, isBound, lineTag, otherLineNote, readBound } from '../../core/signatures.js';
import type { SseEvent } from '../../core/sse.js';
import { fromResponsesUsage } from './usage.js';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Reads a Responses stream as it passes: only the terminal event (which carries the usage) and
 * errors are parsed; text and argument deltas are kept raw for counting if no usage comes.
 */
export class ResponsesStreamTap extends BaseStreamTap {
  private readonly deltas: string[] = [];

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    if (data === '[DONE]') return false; // some compatible servers add it; Responses clients do not expect it
    assertJsonObjectShape(data);
    const type = ev.event ?? /"type":"([^"]+)"/.exec(data)?.[1];
    if (type !== undefined && TERMINAL.has(type)) {
      const response = (JSON.parse(data) as { response?: { usage?: unknown; error?: { message?: string } | null } })
        .response;
      if (response?.usage) this.found = fromResponsesUsage(response.usage);
      if (type === 'response.failed') this.failure = upstreamStreamError(response?.error?.message);
      this.done = true;
    } else if (type === 'error') {
      this.failure = upstreamStreamError((JSON.parse(data) as { message?: string }).message);
    } else if (type !== undefined && type.endsWith('.delta')) {
      this.deltas.push(data);
    }
    return true;
  }

  produced(): string {
    let out = '';
    for (const data of this.deltas) {
      try {
        const d = (JSON.parse(data) as { delta?: unknown }).delta;
        if (typeof d === 'string') out += d;
      } catch {
        // A malformed fragment produced nothing countable.
      }
    }
    return out;
  }
}

/** Item types whose `encrypted_content` only the account that made it can read: reasoning, and compaction (`compaction_summary` is its older name). */
const ENCRYPTED_ITEMS = new Set(['reasoning', 'compaction', 'compaction_summary']);

const encryptedItem = (i: unknown): i is Record<string, unknown> =>
  isObject(i) && typeof i.type === 'string' && ENCRYPTED_ITEMS.has(i.type);

/**
 * The input as line `lineId` can verify it: reasoning items Tollgate gave the client for another
 * family (`encrypted_content` with its mark, core/reasoning.ts) are taken out, as OpenAI would
 * refuse encrypted content it cannot read (docs/protocols.md §6.6); so are reasoning and
 * compaction items bound to another line (core/signatures.ts), and those bound to this line are
 * unbound. Undefined when nothing changes.
 */
function inputForLine(
  input: unknown,
  lineId: string | undefined,
): { input: unknown[]; foreign: number; otherLine: number; compactions: number; unbound: number } | undefined {
  if (!Array.isArray(input)) return undefined;
  const tag = lineId === undefined ? undefined : lineTag(lineId);
  const count = { foreign: 0, otherLine: 0, compactions: 0, unbound: 0 };
  const kept = input.flatMap((i: unknown) => {
    if (!encryptedItem(i)) return [i];
    if (i.type === 'reasoning' && isMarked(i.encrypted_content)) {
      count.foreign++;
      return [];
    }
    if (tag === undefined || !isBound(i.encrypted_content)) return [i];
    const b = readBound(i.encrypted_content);
    if (b?.tag === tag) {
      count.unbound++;
      return [{ ...i, encrypted_content: b.value }];
    }
    if (i.type === 'reasoning') count.otherLine++;
    else count.compactions++;
    return [];
  });
  return count.foreign + count.otherLine + count.compactions + count.unbound > 0
    ? { input: kept, ...count }
    : undefined;
}

function notesOf(changed: NonNullable<ReturnType<typeof inputForLine>>): string[] {
  const notes: string[] = [];
  if (changed.foreign > 0)
    notes.push(
      `openai-responses: dropped ${changed.foreign} reasoning item(s) of another family: only the family that made them can verify them`,
    );
  if (changed.otherLine > 0) notes.push(otherLineNote('openai-responses', `${changed.otherLine} reasoning item(s)`));
  if (changed.compactions > 0)
    notes.push(
      otherLineNote(
        'openai-responses',
        `${changed.compactions} compaction item(s), and with them the history they summarised,`,
      ),
    );
  return notes;
}

/** Binds an item's encrypted content to the line; true when it did. */
function bindItem(item: unknown, lineId: string): boolean {
  if (!encryptedItem(item) || typeof item.encrypted_content !== 'string' || item.encrypted_content === '') return false;
  item.encrypted_content = bind(item.encrypted_content, lineId);
  return true;
}

function bindOutput(response: unknown, lineId: string): boolean {
  const output = isObject(response) && Array.isArray(response.output) ? response.output : [];
  let changed = false;
  for (const item of output) changed = bindItem(item, lineId) || changed;
  return changed;
}

/**
 * Binding a Responses answer's encrypted content (core/signatures.ts): reasoning and compaction
 * items of a whole answer (a response, or a compacted one); in a stream, the items of
 * output_item events and the output of the terminal response, only in events that hold some.
 */
export const responsesSignatures = {
  answer: bindOutput,
  event(data: string, lineId: string): string {
    if (!data.includes('"encrypted_content"')) return data;
    const ev = JSON.parse(data) as { item?: unknown; response?: unknown };
    const item = bindItem(ev.item, lineId);
    const output = bindOutput(ev.response, lineId);
    return item || output ? JSON.stringify(ev) : data;
  },
};

/** Where the request goes: `/responses`, or `/responses/compact` (no output limit there, and its output is not text to count). */
export interface ResponsesPassthroughOptions {
  compact?: boolean;
}

/**
 * Responses in, `openai-responses` upstream out: `model` is rewritten, and the input keeps only
 * what the line can verify (inputForLine).
 */
export function responsesPassthrough(
  body: Record<string, unknown>,
  rawBody: string,
  opts: ResponsesPassthroughOptions = {},
): Passthrough {
  return {
    request(upstreamModel, _quirks, outputLimit, line) {
      const changed = inputForLine(body.input, line?.id);
      const notes = changed ? notesOf(changed) : [];
      const unbound = changed && line && notes.length === 0 ? { field: 'input', line: line.id } : undefined;
      // OpenAI refuses max_output_tokens below 16; compaction takes none.
      const limit = outputLimit === undefined || opts.compact ? {} : { max_output_tokens: Math.max(16, outputLimit) };
      return {
        path: opts.compact ? '/responses/compact' : '/responses',
        headers: {},
        body: upstreamBody(
          rawBody,
          body,
          { model: upstreamModel, ...(changed ? { input: changed.input } : {}), ...limit },
          unbound,
        ),
        ...(notes.length > 0 ? { notes } : {}),
      };
    },
    tap: () => new ResponsesStreamTap(),
    modelField: { answer: ['model'], event: ['response', 'model'] },
    signatures: responsesSignatures,
    readAnswer(parsed) {
      const p = parsed as { usage?: unknown; output?: { content?: { text?: string }[]; arguments?: string }[] };
      // A compacted output repeats the user's messages and holds the rest encrypted: nothing it produced can be counted.
      const produced = (opts.compact ? [] : (p.output ?? []))
        .map((item) => (item.content ?? []).map((c) => c.text ?? '').join('') + (item.arguments ?? ''))
        .join('');
      return { usage: p.usage ? fromResponsesUsage(p.usage) : undefined, produced };
    },
  };
}
