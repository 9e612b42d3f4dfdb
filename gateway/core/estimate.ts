/**
 * The cheap prompt estimate made before forwarding, for the reservation: bytes, no tokenizer.
 * Real counts (count_tokens, the bill of a stream cut short or of an upstream that reports no
 * usage) use the BPE tokenizer in its own thread (core/tokenizer.ts).
 */

/** Images travel as base64; their token cost is nowhere near their length. */
const DATA_URI = /data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=]{64,}/g;
const TOKENS_PER_IMAGE = 1_600;

/**
 * An upper-side estimate of prompt tokens from the raw request body: one token per 3 bytes of
 * JSON (BPE tokenizers average about 4 characters per token of English; JSON punctuation and
 * non-Latin scripts push it down), plus a fixed allowance per inline image.
 */
export function estimatePromptTokensFromBody(rawBody: string): number {
  let length = Buffer.byteLength(rawBody, 'utf8');
  let images = 0;
  if (rawBody.includes(';base64,')) {
    for (const m of rawBody.matchAll(DATA_URI)) {
      length -= m[0].length; // base64 is ASCII: characters = bytes
      images++;
    }
  }
  return Math.ceil(length / 3) + images * TOKENS_PER_IMAGE;
}
