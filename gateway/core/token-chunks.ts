/**
 * The linear-time bound on token counting. A BPE tokenizer merges within one pre-token (a word),
 * and the cost of that grows with the square of the word's length: one 200 kB "word" took 17 s.
 * Counting text in chunks of at most CHUNK_CHARS, cut before whitespace where there is some,
 * bounds every word, so the work grows linearly with the text. A cut inside a word (only when a
 * run has no whitespace for CHUNK_CHARS) may add a token at the cut: a run that long is not
 * language anyway. Text beyond MAX_COUNTED_CHARS is not counted whole: evenly spread samples
 * are, and the count is scaled up (docs/money.md, "Token counts").
 */

export const CHUNK_CHARS = 500;
/** How far back from a chunk's end a whitespace is looked for, to cut there instead of in a word. */
const LOOK_BACK = 100;
/**
 * The most text one count tokenizes. Prose costs the tokenizer well under a microsecond a
 * character (its words repeat, and it caches them); text built to defeat that (random letters or
 * CJK without spaces) about 10 µs, so this bounds one count at about 5 s of the worker's time.
 */
export const MAX_COUNTED_CHARS = 500_000;
const SAMPLES = 16;

/** `text` cut into pieces of at most CHUNK_CHARS, before a whitespace where one is near, never inside a surrogate pair. */
export function* chunks(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > CHUNK_CHARS) {
    let end = start + CHUNK_CHARS;
    for (let i = end; i > end - LOOK_BACK; i--) {
      if (isSpace(text.charCodeAt(i))) {
        end = i;
        break;
      }
    }
    if (isLowSurrogate(text.charCodeAt(end))) end--;
    yield text.slice(start, end);
    start = end;
  }
  if (start < text.length) yield text.slice(start);
}

/**
 * What to count of `text`: all of it when it is within MAX_COUNTED_CHARS; otherwise evenly spread
 * samples whose count, times `scale`, estimates the whole.
 */
export function sample(text: string): { parts: string[]; scale: number } {
  if (text.length <= MAX_COUNTED_CHARS) return { parts: [text], scale: 1 };
  const size = Math.floor(MAX_COUNTED_CHARS / SAMPLES);
  const step = Math.floor(text.length / SAMPLES);
  const parts: string[] = [];
  for (let i = 0; i < SAMPLES; i++) parts.push(text.slice(i * step, i * step + size));
  return { parts, scale: text.length / (size * SAMPLES) };
}

/** Counts `text` with `count` chunk by chunk; stops (returns undefined) as soon as `stopped()` says so. */
export function countInChunks(
  text: string,
  count: (chunk: string) => number,
  stopped: () => boolean = () => false,
): number | undefined {
  let n = 0;
  for (const c of chunks(text)) {
    if (stopped()) return undefined;
    n += count(c);
  }
  return n;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
