/**
 * What an Anthropic upstream refuses in a conversation's reasoning (docs/protocols.md §6.6), for
 * the translated request (to-request.ts) and the pass-through alike:
 *
 * - A thinking block must carry the signature Anthropic gave it. Blocks with an empty signature
 *   (another family's reasoning, as older Tollgate versions and other gateways hand it to Messages
 *   clients) or with Tollgate's mark (core/reasoning.ts: another family's reasoning, carried for
 *   its own upstream) are removed, as are marked redacted_thinking blocks.
 * - A signature (or redacted data) bound to the line that made it (core/signatures.ts) goes to that
 *   line unbound, and is removed, with its block, on the way to any other line: another account's
 *   signatures do not verify.
 * - With thinking on, the assistant turn that opened a tool loop still in progress must start with
 *   thinking. When that turn came from another family there is no block Anthropic would accept,
 *   so thinking is turned off for this request (the loop's next turn after a user message turns
 *   it on again): the alternative is a 400 on every request until the loop ends.
 */
import { isMarked } from '../../core/reasoning.js';
import { isObject } from '../../core/json.js';
import { isBound, lineTag, readBound } from '../../core/signatures.js';

type Json = Record<string, unknown>;

/** A thinking or redacted_thinking block an Anthropic upstream would refuse. */
export function refusedReasoning(b: unknown): boolean {
  if (!isObject(b)) return false;
  if (b.type === 'thinking') return typeof b.signature !== 'string' || b.signature === '' || isMarked(b.signature);
  return b.type === 'redacted_thinking' && isMarked(b.data);
}

/** The field of a reasoning block that holds its proof. */
const proofField = (b: Json): 'signature' | 'data' => (b.type === 'thinking' ? 'signature' : 'data');

/** A reasoning block whose proof is bound to a line (core/signatures.ts). */
function bound(b: unknown): b is Json {
  return isObject(b) && (b.type === 'thinking' || b.type === 'redacted_thinking') && isBound(b[proofField(b)]);
}

/**
 * The messages without refused reasoning, for line `lineId` when it is known: `dropped` blocks
 * were unsigned or another family's, `otherLine` blocks another line's, and `unbound` blocks went
 * to this line with their proof unbound. Undefined when nothing changes.
 */
export function withoutRefusedReasoning(
  messages: readonly unknown[],
  lineId?: string,
): { messages: unknown[]; dropped: number; otherLine: number; unbound: number } | undefined {
  let dropped = 0;
  let otherLine = 0;
  let unbound = 0;
  const tag = lineId === undefined ? undefined : lineTag(lineId);
  const touched = (b: unknown): boolean => refusedReasoning(b) || (tag !== undefined && bound(b));
  const changes = (m: unknown): m is Json =>
    isObject(m) && m.role === 'assistant' && Array.isArray(m.content) && m.content.some(touched);
  // The usual history has nothing to change: found without copying it.
  if (!messages.some(changes)) return undefined;
  const out = messages.flatMap((m) => {
    if (!changes(m)) return [m];
    const content = (m.content as unknown[]).flatMap((b: unknown) => {
      if (refusedReasoning(b)) {
        dropped++;
        return [];
      }
      if (tag === undefined || !bound(b)) return [b];
      const field = proofField(b);
      const proof = readBound(b[field]);
      if (proof?.tag !== tag) {
        otherLine++;
        return [];
      }
      unbound++;
      // Copies, then the field set: a spread followed by properties is V8's slow path in Node 20.
      const copy = { ...b };
      copy[field] = proof.value;
      return [copy];
    });
    if (content.length === 0) return [];
    const copy = { ...m };
    copy.content = content;
    return [copy];
  });
  return dropped + otherLine + unbound > 0 ? { messages: out, dropped, otherLine, unbound } : undefined;
}

const blocksOf = (m: Json): unknown[] => (Array.isArray(m.content) ? m.content : []);

/**
 * With thinking on: a tool loop is in progress (the last turn holds tool results) and the
 * assistant turn before it does not start with thinking, which Anthropic refuses.
 */
export function loopWithoutThinking(messages: readonly unknown[]): boolean {
  // The last two turns that are not system messages, found from the end (no copy of the history).
  let last: Json | undefined;
  let opener: Json | undefined;
  for (let i = messages.length - 1; i >= 0 && opener === undefined; i--) {
    const m = messages[i];
    if (!isObject(m) || m.role === 'system') continue;
    if (last === undefined) last = m;
    else opener = m;
  }
  if (last?.role !== 'user' || !blocksOf(last).some((b) => isObject(b) && b.type === 'tool_result')) return false;
  if (opener?.role !== 'assistant') return false;
  const first = blocksOf(opener)[0];
  return !(isObject(first) && (first.type === 'thinking' || first.type === 'redacted_thinking'));
}

/** The log note for a request whose thinking was turned off by loopWithoutThinking. */
export const THINKING_OFF_NOTE =
  'anthropic: thinking turned off for this request: the tool loop in progress began on another family, whose reasoning Anthropic cannot verify';

/** The log note for blocks withoutRefusedReasoning removed. */
export const droppedReasoningNote = (n: number): string =>
  `anthropic: dropped ${n} thinking block(s) that were unsigned or from another family: only Anthropic's own signatures verify`;
