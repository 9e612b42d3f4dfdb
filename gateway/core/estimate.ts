/**
 * The cheap prompt estimate made before forwarding, for the reservation: bytes, no tokenizer.
 * Real counts (count_tokens, the bill of a stream cut short or of an upstream that reports no
 * usage) use the BPE tokenizer in its own thread (core/tokenizer.ts).
 */

/**
 * Images travel as base64; their token cost is nowhere near their length. An inline image is a data
 * URI, `data:type/subtype;base64,` and 64 or more base64 characters (found by `scan` below).
 */
const TOKENS_PER_IMAGE = 1_600;

/**
 * An upper-side estimate of prompt tokens from the raw request body: one token per 3 bytes of
 * JSON (BPE tokenizers average about 4 characters per token of English; JSON punctuation and
 * non-Latin scripts push it down), plus a fixed allowance per inline image.
 */
export function estimatePromptTokensFromBody(rawBody: string): number {
  return estimateBody(rawBody).promptTokens;
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
  return scan(rawBody, Buffer.byteLength(rawBody, 'utf8')).textTokens;
}

/** Both estimates of one body; the text estimate only when it can matter. */
export interface BodyEstimate {
  /** estimatePromptTokensFromBody's figure, for the reservation. */
  promptTokens: number;
  /**
   * What textTokens() can be at most, known without reading the body: one token per 3 bytes, and
   * each possible blob (one per BASE64_RUN bytes at most) at its allowance rather than its length.
   */
  textTokensAtMost: number;
  /** estimateTextTokensFromBody's figure, for the context-window check. */
  textTokens(): number;
}

/**
 * Both estimates over at most one pass of the body: its byte length and whether it holds a data
 * URI at all are native scans; the character loop runs only for a body with a data URI in it (its
 * images are then discounted in the same loop), or when the text estimate is asked for (only
 * when its bound (textTokensAtMost) passes what the context check allows). `byteLength`, when
 * given, is the UTF-8 length of `rawBody` (the bytes it was decoded from).
 */
export function estimateBody(rawBody: string, byteLength?: number): BodyEstimate {
  // The HTTP layer knows the length of the bytes it decoded: no second pass to count them.
  const bytes = byteLength ?? Buffer.byteLength(rawBody, 'utf8');
  const bound = Math.ceil(bytes / 3);
  const textBound = bound + Math.floor(bytes / BASE64_RUN) * TOKENS_PER_IMAGE;
  let scanned: Scan | undefined;
  const full = (): Scan => (scanned ??= scan(rawBody, bytes));
  return {
    promptTokens: rawBody.includes(';base64,') ? full().promptTokens : bound,
    textTokensAtMost: textBound,
    textTokens: () => full().textTokens,
  };
}

interface Scan {
  promptTokens: number;
  textTokens: number;
}

const isTypeChar = (c: number): boolean =>
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x5f ||
  c === 0x2e ||
  c === 0x2b ||
  c === 0x2d;

/** Where the data URI header (`data:type/subtype;base64,`) that ends just before `at` starts, or -1. */
function dataUriStart(text: string, at: number): number {
  const marker = ';base64,';
  if (at < marker.length || !text.startsWith(marker, at - marker.length)) return -1;
  let i = at - marker.length;
  const subtypeEnd = i;
  while (i > 0 && isTypeChar(text.charCodeAt(i - 1))) i--;
  if (i === subtypeEnd || i === 0 || text.charCodeAt(i - 1) !== 0x2f) return -1;
  i--;
  const typeEnd = i;
  while (i > 0 && isTypeChar(text.charCodeAt(i - 1))) i--;
  if (i === typeEnd || !text.startsWith('data:', i - 5)) return -1;
  return i - 5;
}

/**
 * The one character loop: runs of base64 characters. A run of BASE64_RUN or more is a blob for the
 * text estimate; a run of 64 or more right after a data URI's header is an image for the prompt
 * estimate, which discounts the header with it.
 */
function scan(rawBody: string, bytes: number): Scan {
  let text = bytes;
  let prompt = bytes;
  let blobs = 0;
  let images = 0;
  let run = 0;
  for (let i = 0; i <= rawBody.length; i++) {
    if (i < rawBody.length && isBase64Char(rawBody.charCodeAt(i))) {
      run++;
      continue;
    }
    if (run >= BASE64_RUN) {
      text -= run;
      blobs++;
    }
    if (run >= 64) {
      const start = dataUriStart(rawBody, i - run);
      if (start >= 0) {
        prompt -= i - start; // base64 and its header are ASCII: characters = bytes
        images++;
      }
    }
    run = 0;
  }
  return {
    promptTokens: Math.ceil(prompt / 3) + images * TOKENS_PER_IMAGE,
    textTokens: Math.ceil(text / 3) + blobs * TOKENS_PER_IMAGE,
  };
}
