/**
 * Reasoning that must come back to the upstream that made it, carried through a client whose wire
 * format has no place for it (docs/protocols.md §6.6, "Tollgate's own blocks").
 *
 * Signed reasoning verifies only with the family that signed it: an Anthropic thinking signature,
 * an OpenAI Responses `encrypted_content`, a Gemini thought signature. When an answer goes to a
 * client of another format, Tollgate puts what that client has no field for into the field the
 * client does resend verbatim (a thinking block's `signature`, a reasoning item's
 * `encrypted_content`, a part's `thoughtSignature`), as a *marked* value: a prefix no vendor's
 * value can have, then the family and the original value, base64url-encoded. When the client
 * sends its history back, the decoder reads the mark and restores the canonical block with its
 * real family, so each upstream side keeps what it can verify and drops the rest.
 *
 * A mark holds everything needed, so nothing is stored: it survives restarts, works across
 * several gateways and needs no clean-up. It is not a secret and not signed: a forged mark can
 * only make Tollgate send a vendor a value that vendor then checks itself.
 */
import type { ProviderFamily, RedactedThinkingBlock, ThinkingBlock } from './canonical.js';
import { isObject } from './json.js';

/** `.` is not in the base64 alphabets, so no vendor signature or encrypted content starts like this. */
const PREFIX = 'tollgate.r1.';

const FAMILIES: readonly ProviderFamily[] = ['anthropic', 'openai', 'gemini', 'openai-chat'];

/** A thinking block with its family and proof, in a form that survives JSON. */
export type CarriedBlock =
  | Pick<ThinkingBlock, 'type' | 'text' | 'signature' | 'family'>
  | Pick<RedactedThinkingBlock, 'type' | 'data' | 'family'>;

export type Carried =
  /** The proof of one thinking block whose text the client keeps beside the mark. */
  | { kind: 'thinking'; family?: ProviderFamily; signature?: string }
  /** Anthropic's redacted thinking, which has no text. */
  | { kind: 'redacted'; family: ProviderFamily; data: string }
  /** A Gemini thought signature that belongs to a function call (Gemini 3 wants it back on the call). */
  | { kind: 'call'; family: ProviderFamily; callId: string; signature: string }
  /** Whole blocks, for clients that keep no reasoning in their history (Gemini CLI drops thought parts). */
  | { kind: 'bundle'; blocks: CarriedBlock[] };

export function isMarked(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function mark(carried: Carried): string {
  return PREFIX + Buffer.from(JSON.stringify(carried)).toString('base64url');
}

const family = (v: unknown): ProviderFamily | undefined =>
  FAMILIES.includes(v as ProviderFamily) ? (v as ProviderFamily) : undefined;
const optString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function block(v: unknown): CarriedBlock | undefined {
  if (!isObject(v)) return undefined;
  const f = family(v.family);
  if (v.type === 'redacted_thinking' && typeof v.data === 'string')
    return f ? { type: 'redacted_thinking', data: v.data, family: f } : { type: 'redacted_thinking', data: v.data };
  if (v.type !== 'thinking' || typeof v.text !== 'string') return undefined;
  const out: CarriedBlock = { type: 'thinking', text: v.text };
  if (f) out.family = f;
  const s = optString(v.signature);
  if (s) out.signature = s;
  return out;
}

/** The carried reasoning of a marked value; undefined when the value is not a mark or the mark is damaged. */
export function unmark(value: unknown): Carried | undefined {
  if (!isMarked(value)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(value.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(v)) return undefined;
  if (v.kind === 'bundle')
    return Array.isArray(v.blocks) ? { kind: 'bundle', blocks: v.blocks.flatMap((b) => block(b) ?? []) } : undefined;
  const f = family(v.family);
  const signature = optString(v.signature);
  if (v.kind === 'thinking')
    return { kind: 'thinking', ...(f ? { family: f } : {}), ...(signature ? { signature } : {}) };
  if (!f) return undefined;
  if (v.kind === 'redacted' && typeof v.data === 'string') return { kind: 'redacted', family: f, data: v.data };
  if (v.kind === 'call' && typeof v.callId === 'string' && signature)
    return { kind: 'call', family: f, callId: v.callId, signature };
  return undefined;
}

/** A canonical thinking block rebuilt from a mark of kind `thinking` and the text the client kept. */
export function thinkingFrom(carried: Extract<Carried, { kind: 'thinking' }>, text: string): ThinkingBlock {
  return {
    type: 'thinking',
    text,
    ...(carried.signature ? { signature: carried.signature } : {}),
    ...(carried.family ? { family: carried.family } : {}),
  };
}

/** A carried block back in canonical form. */
export function restore(b: CarriedBlock): ThinkingBlock | RedactedThinkingBlock {
  return { ...b } as ThinkingBlock | RedactedThinkingBlock;
}

/** The mark for a canonical thinking block whose text the client keeps beside it. */
export function markThinking(b: ThinkingBlock): string {
  return mark({
    kind: 'thinking',
    ...(b.family ? { family: b.family } : {}),
    ...(b.signature ? { signature: b.signature } : {}),
  });
}

/** The log note for reasoning an upstream side leaves out. */
export function droppedNote(format: string, what: string, from: ProviderFamily | undefined, unsigned = false): string {
  return `${format}: dropped ${what} from ${from ?? 'an unknown provider'}${unsigned ? ' (unsigned)' : ''}: only the family that made it can verify it`;
}
