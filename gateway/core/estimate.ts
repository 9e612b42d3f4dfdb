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

/** A run of base64 this long is binary data (an image, a PDF), whatever its wrapper: prose has spaces. */
const BASE64_RUN = 1000;

function isBase64Char(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2f ||
    c === 0x3d
  );
}

/**
 * The same estimate, for the prompt's text only: long base64 runs (images and documents in
 * Anthropic's and Gemini's `data` fields as well as data URIs) count as one image each. Used to
 * refuse a prompt far beyond the model's context window, which a large inline image must not trip.
 * One pass over the characters: a regular expression for "1000 or more" would rescan each shorter
 * run from every position in it, quadratic on a body made of such runs.
 */
export function estimateTextTokensFromBody(rawBody: string): number {
  let length = Buffer.byteLength(rawBody, 'utf8');
  let blobs = 0;
  let run = 0;
  for (let i = 0; i <= rawBody.length; i++) {
    if (i < rawBody.length && isBase64Char(rawBody.charCodeAt(i))) {
      run++;
      continue;
    }
    if (run >= BASE64_RUN) {
      length -= run;
      blobs++;
    }
    run = 0;
  }
  return Math.ceil(length / 3) + blobs * TOKENS_PER_IMAGE;
}
