/**
 * Which line made a reasoning signature (docs/protocols.md §6.6, "Signatures and lines").
 *
 * A signature verifies only with the account that minted it: Anthropic refuses another account's
 * thinking signature, Gemini another key's thought signature, OpenAI another organisation's
 * `encrypted_content`. Two lines of one family may be two accounts, so a conversation that fails
 * over (or is routed) from line A to line B must not take A's signatures to B. Every signature a
 * line hands out goes to the client *bound*: `tollgate.l1.<line tag>.<the vendor's value>`, in the
 * field the client resends verbatim. Coming back, a value bound to the line the request goes to is
 * unbound (the vendor gets its own bytes); one bound to another line is left out, as another
 * family's reasoning is. A value that is not bound (a client's history from before, or from the
 * vendor directly) passes as it is.
 *
 * The binding lives in the value, not in a table: nothing is stored, so it holds across a restart
 * (a resumed session whose line then fails over still loses only what it must) and needs no bound
 * or clean-up. The vendor's value follows the prefix unchanged, so unbinding is a slice, and a
 * JSON body whose bound values all belong to one line can be unbound in its raw text
 * (unbindRaw) without serialising it again.
 */
import type {
  CanonicalMessage,
  CanonicalResponse,
  ContentBlock,
  ProviderFamily,
  StreamEvent,
  ThinkingBlock,
  ToolCallBlock,
} from './canonical.js';

/** `.` is in neither base64 alphabet, so no vendor value starts like this (core/reasoning.ts uses `tollgate.r1.`). */
export const BOUND_PREFIX = 'tollgate.l1.';

const SAFE_TAG = /^[A-Za-z0-9_-]{1,64}$/;

/** The line id as it appears in a bound value: as it is when it is a plain token (line ids are `line_<hex>`), else base64url. */
export function lineTag(lineId: string): string {
  return SAFE_TAG.test(lineId) ? lineId : `b64-${Buffer.from(lineId).toString('base64url')}`;
}

export function isBound(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(BOUND_PREFIX);
}

/** The vendor's value bound to the line that made it. */
export function bind(value: string, lineId: string): string {
  return `${BOUND_PREFIX}${lineTag(lineId)}.${value}`;
}

/** A bound value's line tag and the vendor's value; undefined when the value is not bound (or is damaged). */
export function readBound(value: unknown): { tag: string; value: string } | undefined {
  if (!isBound(value)) return undefined;
  const dot = value.indexOf('.', BOUND_PREFIX.length);
  if (dot < 0) return undefined;
  return { tag: value.slice(BOUND_PREFIX.length, dot), value: value.slice(dot + 1) };
}

/**
 * What to send to line `lineId` for a signature: the vendor's value when it is bound to that line,
 * the value itself when it is not bound, and undefined when it is bound to another line (or is a
 * damaged binding), which must not be sent.
 */
export function forLine(value: string, lineId: string): string | undefined {
  if (!isBound(value)) return value;
  const b = readBound(value);
  return b && b.tag === lineTag(lineId) ? b.value : undefined;
}

/** The log note for signatures left out because another line made them. */
export function otherLineNote(format: string, what: string): string {
  return `${format}: left out ${what} made by another line (another account's signatures do not verify)`;
}

// ── The translated path: canonical answers bound on the way out, requests unbound on the way in ──

// Copies, then the field set: a spread followed by properties is V8's slow path in Node 20 (relay/respond.ts answerHeaders).
function bindBlock(b: ContentBlock, lineId: string): ContentBlock {
  if ((b.type === 'thinking' || b.type === 'tool_call') && b.signature) {
    const out = { ...b };
    out.signature = bind(b.signature, lineId);
    return out;
  }
  if (b.type === 'redacted_thinking' || b.type === 'compaction') {
    const out = { ...b };
    out.data = bind(b.data, lineId);
    return out;
  }
  return b;
}

/** A block that carries a signature of the line's (bindBlock changes it). */
const signed = (b: ContentBlock): boolean =>
  ((b.type === 'thinking' || b.type === 'tool_call') && !!b.signature) ||
  b.type === 'redacted_thinking' ||
  b.type === 'compaction';

/** An upstream's answer with every signature in it bound to the line that answered; the same object when it has none. */
export function bindResponse(res: CanonicalResponse, lineId: string): CanonicalResponse {
  if (!res.content.some(signed)) return res;
  const out = { ...res };
  out.content = res.content.map((b) => bindBlock(b, lineId));
  return out;
}

/** One event of an upstream's stream with every signature in it bound to the line that answered; the same event when it has none. */
export function bindEvent(ev: StreamEvent, lineId: string): StreamEvent {
  if (ev.type === 'signature_delta') return { ...ev, signature: bind(ev.signature, lineId) };
  if (ev.type === 'block_start' && ev.block.type === 'redacted_thinking')
    return { ...ev, block: { ...ev.block, data: bind(ev.block.data, lineId) } };
  if (ev.type === 'block_start' && ev.block.type === 'tool_call' && ev.block.signature)
    return { ...ev, block: { ...ev.block, signature: bind(ev.block.signature, lineId) } };
  if (ev.type === 'compaction') return { ...ev, data: bind(ev.data, lineId) };
  return ev;
}

/** An upstream's stream with every signature in it bound to the line that answered (bindEvent on each event). */
export async function* bindStream(events: AsyncIterable<StreamEvent>, lineId: string): AsyncGenerator<StreamEvent> {
  for await (const ev of events) yield bindEvent(ev, lineId);
}

/**
 * The messages as line `lineId` of family `family` (format `format`, for the note) may see them: that family's bound signatures
 * unbound when the line made them, and removed when another line did (the block stays, unsigned,
 * for the upstream side to treat as it treats unsigned reasoning: Anthropic and OpenAI drop it,
 * Gemini puts its placeholder on the call; redacted thinking and compaction, which are nothing
 * but their proof, go whole). Other families' blocks are the upstream side's business.
 * The same array when nothing changes.
 */
export function messagesForLine(
  messages: CanonicalMessage[],
  lineId: string,
  family: ProviderFamily,
  format: string,
  notes: string[],
): CanonicalMessage[] {
  let removed = 0;
  const tag = lineTag(lineId);
  const unbound = (v: string): string | undefined => {
    const b = readBound(v);
    if (b && b.tag === tag) return b.value;
    removed++;
    return undefined;
  };
  let changed = false;
  const out = messages.map((m) => {
    if (!m.content.some((b) => boundOf(b, family))) return m;
    changed = true;
    const content = m.content.flatMap((b): ContentBlock[] => {
      if (!boundOf(b, family)) return [b];
      // The rest is a copy already: the unbound value is set on it (a spread followed by properties is V8's slow path).
      if (b.type === 'thinking') {
        const { signature, ...rest } = b;
        const v = unbound(signature!);
        const out: ThinkingBlock = rest;
        if (v !== undefined) out.signature = v;
        return [out];
      }
      if (b.type === 'redacted_thinking' || b.type === 'compaction') {
        const v = unbound(b.data);
        if (v === undefined) return [];
        const out = { ...b };
        out.data = v;
        return [out];
      }
      if (b.type === 'tool_call') {
        const { signature, signatureFamily, ...rest } = b;
        const v = unbound(signature!);
        const out: ToolCallBlock = rest;
        if (v !== undefined) {
          out.signature = v;
          if (signatureFamily) out.signatureFamily = signatureFamily;
        }
        return [out];
      }
      return [b];
    });
    const copy = { ...m };
    copy.content = content;
    return copy;
  });
  if (removed > 0) notes.push(otherLineNote(format, `${removed} signature(s)`));
  return changed ? out : messages;
}

/** The block carries a signature of `family` that is bound to some line. */
function boundOf(b: ContentBlock, family: ProviderFamily): boolean {
  if (b.type === 'thinking') return b.family === family && isBound(b.signature);
  if (b.type === 'redacted_thinking') return (b.family ?? 'anthropic') === family && isBound(b.data);
  if (b.type === 'tool_call') return b.signatureFamily === family && isBound(b.signature);
  if (b.type === 'compaction') return b.family === family && isBound(b.data);
  return false;
}

// ── The pass-through: a raw JSON body unbound in place ──

/**
 * `raw` (a JSON text) with every string that starts with a value bound to `lineId` unbound, found
 * by its opening quote: in valid JSON an unescaped `"` followed by the prefix can only open a string
 * (a closing quote is followed by `,` `:` `}` `]` or space), and one preceded by an odd number of
 * backslashes is text inside another string, which is left alone. The caller uses it only when the
 * parsed body showed that every bound signature belongs to this line, so the result is the client's
 * body with those signatures unbound, byte for byte otherwise.
 */
export function unbindRaw(raw: string, lineId: string): string {
  const needle = `"${BOUND_PREFIX}${lineTag(lineId)}.`;
  let at = raw.indexOf(needle);
  if (at < 0) return raw;
  let out = '';
  let from = 0;
  while (at >= 0) {
    let backslashes = 0;
    for (let j = at - 1; j >= 0 && raw.charCodeAt(j) === 92; j--) backslashes++;
    out += raw.slice(from, at) + (backslashes % 2 === 0 ? '"' : needle);
    from = at + needle.length;
    at = raw.indexOf(needle, from);
  }
  return out + raw.slice(from);
}
