/**
 * Counts that clients ask for (count_tokens, Gemini's countTokens). They run in the token-counting
 * thread's second queue (core/tokenizer.ts): the thread takes turns between billing's queue (a
 * stream cut short, an upstream that reported no usage) and this one chunk by chunk, so a client
 * that asks for large counts never delays another request's settlement by more than one chunk,
 * and both share one copy of the tokenizer's tables. Should the thread die, the counts it owed are
 * answered with the rough estimate of four characters a token.
 */
import { countInClientsQueue } from './tokenizer.js';

/** Tokens of `text` in o200k_base, in the clients' queue; as core/tokenizer.ts countTokens otherwise. */
export function countClientTokens(text: string, signal?: AbortSignal): Promise<number> {
  return countInClientsQueue(text, signal);
}
