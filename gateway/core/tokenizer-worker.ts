/**
 * The token-counting thread (core/tokenizer.ts starts it). It loads the o200k tokenizer once and
 * counts for two queues, billing's and the clients' (count_tokens), one chunk at a time
 * (core/token-chunks.ts) and taking turns between the two whenever both have work: a client's
 * long count holds a count billing needs for at most one chunk of its own, and one copy of the
 * tables serves both. Between chunks it takes the counts that arrived meanwhile and checks
 * whether the request that asked has gone: then that count stops and the queue goes on.
 */
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { fullCollection } from './full-gc.js';
import { o200k } from './o200k.js';
import { chunks } from './token-chunks.js';

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

/** Whose count it is: billing's (a settlement waits for it) or a client's (count_tokens). */
export type CountLane = 'billing' | 'clients';

/** One count: the text, and a flag the asking thread sets to 1 when the answer is no longer wanted. */
export interface CountJob {
  id: number;
  lane: CountLane;
  parts: string[];
  cancel: SharedArrayBuffer;
}

export type CountReply = { id: number; tokens: number } | { id: number; cancelled: true };

interface Counting {
  id: number;
  flag: Int32Array;
  pieces: Iterator<string>;
  tokens: number;
}

const queues: Record<CountLane, Counting[]> = { billing: [], clients: [] };
let turn: CountLane = 'billing';

function* piecesOf(parts: string[]): Generator<string> {
  for (const part of parts) yield* chunks(part);
}

function take(job: CountJob): void {
  queues[job.lane === 'clients' ? 'clients' : 'billing'].push({
    id: job.id,
    flag: new Int32Array(job.cancel),
    pieces: piecesOf(job.parts),
    tokens: 0,
  });
}

/** One chunk of the count at the head of the queue whose turn it is (or of the other, when that one is empty). */
function step(port: NonNullable<typeof parentPort>): boolean {
  const lane = queues[turn].length > 0 ? turn : turn === 'billing' ? 'clients' : 'billing';
  const queue = queues[lane];
  const head = queue[0];
  if (!head) return false;
  turn = lane === 'billing' ? 'clients' : 'billing';
  if (Atomics.load(head.flag, 0) === 1) {
    queue.shift();
    port.postMessage({ id: head.id, cancelled: true } satisfies CountReply);
    return true;
  }
  const next = head.pieces.next();
  if (next.done) {
    queue.shift();
    port.postMessage({ id: head.id, tokens: head.tokens } satisfies CountReply);
    return true;
  }
  head.tokens += countTokens(next.value);
  return true;
}

parentPort?.on('message', (job: CountJob) => {
  const port = parentPort!;
  take(job);
  for (;;) {
    // Counts sent while this one was being counted join their queues now, not after it.
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) take(m.message as CountJob);
    if (!step(port)) return;
  }
});
