/**
 * The o200k_base tokenizer (GPT-4o and GPT-5 families) for the token-counting thread, built from
 * gpt-tokenizer's own tiktoken file of the 200,000 ranks rather than from its JavaScript module of
 * them. Both hold the same ranks (test/core/o200k.test.ts). The module is 2.4 MB of array literals:
 * V8 keeps its source, the literals' copies and what compiling it took, and the thread held about
 * 56 MB once loaded; read from the file, the same tables leave it at about 32 MB (docs/performance.md,
 * "Memory, idle and at peak").
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TextDecoder } from 'node:util';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

/** gpt-tokenizer's tiktoken file: one rank a line, the token's bytes in base64 and its rank. */
const RANKS_FILE = 'gpt-tokenizer/data/o200k_base.tiktoken';

/**
 * The ranks, each token as gpt-tokenizer keeps it: a string when its bytes are UTF-8 that decodes
 * to the same bytes, its bytes otherwise (a token may hold part of a character; the byte-order
 * mark, which a decoder drops, stays bytes too).
 */
export function o200kRanks(): Array<string | number[]> {
  const text = readFileSync(fileURLToPath(import.meta.resolve(RANKS_FILE)), 'latin1');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const ranks: Array<string | number[]> = [];
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const space = text.indexOf(' ', start);
    if (end > start) {
      if (space === -1 || space > end) throw new Error(`${RANKS_FILE}: a line without a rank at ${start}`);
      const bytes = Buffer.from(text.slice(start, space), 'base64');
      const rank = Number(text.slice(space + 1, end));
      if (!Number.isInteger(rank) || rank < 0) throw new Error(`${RANKS_FILE}: no rank in the line at ${start}`);
      ranks[rank] = utf8Text(utf8, bytes) ?? [...bytes];
    }
    start = end + 1;
  }
  return ranks;
}

function utf8Text(decoder: TextDecoder, bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(text) === bytes.length ? text : undefined;
}

/** The o200k_base encoding, as gpt-tokenizer's default export builds it, from the file's ranks. */
export function o200k(): GptEncoding {
  return GptEncoding.getEncodingApi('o200k_base', () => o200kRanks());
}
