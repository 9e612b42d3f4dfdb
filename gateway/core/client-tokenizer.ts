/**
 * A second token-counting thread, for counts that clients ask for (count_tokens, Gemini's
 * countTokens). Billing's counts (a stream cut short, an upstream that reported no usage) run in
 * the first one (core/tokenizer.ts), so a client that asks for large counts never delays another
 * request's settlement: each thread has its own queue. It starts on the first client count and
 * holds its own copy of the tables; should it die, the counts it owed are answered with the rough
 * estimate of four characters a token.
 */
import { TokenizerThread } from './tokenizer.js';

const clients = new TokenizerThread("clients' token-counting thread");

/** Tokens of `text` in o200k_base, in the clients' thread; as core/tokenizer.ts countTokens otherwise. */
export function countClientTokens(text: string, signal?: AbortSignal): Promise<number> {
  return clients.count(text, signal);
}

/** Stops the clients' thread (tests, shutdown); the next count starts a new one. */
export function stopClientTokenizer(): Promise<void> {
  return clients.stop();
}
