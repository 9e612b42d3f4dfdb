/**
 * The token-counting thread (core/tokenizer.ts starts it). It loads the o200k tokenizer once and
 * answers one count at a time, chunk by chunk (core/token-chunks.ts), checking between chunks
 * whether the request that asked has gone: then it stops and takes the next.
 */
import { parentPort } from 'node:worker_threads';
import { fullCollection } from './full-gc.js';
import { o200k } from './o200k.js';
import { countInChunks } from './token-chunks.js';

const encoding = o200k();
/**
 * Text that spells a special token (`<|endoftext|>`, `<|fim_prefix|>`) is counted as the text it
 * is: a prompt is text to the upstream too. The library's default refuses such text with an
 * error, which took the thread down and left the count to the rough estimate.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const countTokens = (text: string): number => encoding.countTokens(text, AS_TEXT);
// Reading the tables (a 3.6 MB file of 200,000 ranks, and the map built from them) leaves garbage
// that a thread which then waits for counts would hold for good (docs/performance.md, "Memory,
// idle and at peak").
fullCollection();

/** One count: the text, and a flag the asking thread sets to 1 when the answer is no longer wanted. */
export interface CountJob {
  id: number;
  parts: string[];
  cancel: SharedArrayBuffer;
}

export type CountReply = { id: number; tokens: number } | { id: number; cancelled: true };

parentPort?.on('message', (job: CountJob) => {
  const flag = new Int32Array(job.cancel);
  const stopped = (): boolean => Atomics.load(flag, 0) === 1;
  let tokens = 0;
  for (const part of job.parts) {
    const n = countInChunks(part, countTokens, stopped);
    if (n === undefined) {
      parentPort!.postMessage({ id: job.id, cancelled: true } satisfies CountReply);
      return;
    }
    tokens += n;
  }
  parentPort!.postMessage({ id: job.id, tokens } satisfies CountReply);
});
