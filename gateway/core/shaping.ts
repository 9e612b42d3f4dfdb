/**
 * Choices every upstream side makes the same way when it turns a canonical request into its wire
 * format, kept here so that the formats agree.
 */
import type { CanonicalRequest, ProviderFamily, ReasoningEffort } from './canonical.js';

/**
 * The text of the user turn put first when a conversation opens with the model's turn: Anthropic
 * and Gemini both require the first turn to be the user's.
 */
export const FILLER_USER_TEXT = '.';

/** The log note saying a filler user turn was put first. */
export function fillerTurnNote(format: string): string {
  return `${format}: the conversation did not start with a user turn; a "${FILLER_USER_TEXT}" user turn was put first`;
}

/**
 * The reasoning effort for upstreams that take a level rather than a budget (OpenAI's): the
 * request's own level, else one read from an explicit thinking budget (≤2048 low, ≤8192 medium,
 * else high). `adaptive` thinking gives none, i.e. the model's default.
 */
export function effortOf(req: CanonicalRequest): ReasoningEffort | undefined {
  if (req.reasoningEffort) return req.reasoningEffort;
  if (req.thinking?.type !== 'enabled') return undefined;
  const budget = req.thinking.budgetTokens;
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

/**
 * Notes for the conversation state an upstream of `family` cannot take (docs/protocols.md §3.1):
 * Responses' message `phase` and compaction items go only to OpenAI Responses, and a client's
 * `context_management` only to its own family. The upstream sides leave them out; this says so.
 */
export function uncarriedStateNotes(req: CanonicalRequest, family: ProviderFamily, format: string): string[] {
  const notes: string[] = [];
  if (family !== 'openai') {
    let phases = 0;
    let compactions = 0;
    for (const m of req.messages)
      for (const b of m.content) {
        if (b.type === 'text' && b.phase) phases++;
        if (b.type === 'compaction') compactions++;
      }
    if (phases > 0) notes.push(`${format}: dropped the phase of assistant messages: only OpenAI Responses takes it`);
    if (compactions > 0)
      notes.push(
        `${format}: dropped ${compactions} compaction item(s), and with them the history they summarised: only OpenAI Responses can read them`,
      );
  }
  const cm = req.contextManagement;
  if (cm && cm.family !== family)
    notes.push(`${format}: dropped context_management: it is ${cm.family}'s own, and this upstream is not`);
  return notes;
}
