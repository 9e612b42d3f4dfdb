/**
 * A second token-counting thread, for counts that clients ask for (count_tokens, Gemini's
 * countTokens). Billing's counts (a stream cut short, an upstream that reported no usage) run in
 * the first one (core/tokenizer.ts), so a client that asks for large counts never delays another
 * request's settlement: each thread has its own queue. It starts on the first client count and
 * holds its own copy of the tables; should it die, the counts it owed are answered with the rough
 * estimate of four characters a token.
 */
import type { Worker } from 'node:worker_threads';
import { sample } from './token-chunks.js';
import { spawnWorker } from './tokenizer.js';
import type { CountJob, CountReply } from './tokenizer-worker.js';

interface Waiting {
  resolve(tokens: number): void;
  reject(err: unknown): void;
  rough: number;
  scale: number;
}

let worker: Worker | undefined;
const waiting = new Map<number, Waiting>();
let nextId = 1;

function settle(id: number): Waiting | undefined {
  const w = waiting.get(id);
  waiting.delete(id);
  if (waiting.size === 0) worker?.unref();
  return w;
}

function started(): Worker {
  if (!worker) {
    const w = spawnWorker();
    w.on('message', (reply: CountReply) => {
      const job = settle(reply.id);
      if (job && 'tokens' in reply) job.resolve(Math.ceil(reply.tokens * job.scale));
    });
    const lost = (): void => {
      if (worker !== w) return;
      worker = undefined;
      for (const id of [...waiting.keys()]) {
        const job = settle(id)!;
        job.resolve(job.rough);
      }
    };
    w.on('error', lost);
    w.on('exit', lost);
    worker = w;
  }
  worker.ref();
  return worker;
}

/** Tokens of `text` in o200k_base, in the clients' thread; as core/tokenizer.ts countTokens otherwise. */
export function countClientTokens(text: string, signal?: AbortSignal): Promise<number> {
  if (text === '') return Promise.resolve(0);
  if (signal?.aborted) return Promise.reject(signal.reason);
  const { parts, scale } = sample(text);
  const cancel = new SharedArrayBuffer(4);
  const id = nextId++;
  const w = started();
  return new Promise<number>((resolve, reject) => {
    const onAbort = (): void => {
      Atomics.store(new Int32Array(cancel), 0, 1);
      settle(id)?.reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    waiting.set(id, {
      resolve: (n) => (done(), resolve(n)),
      reject: (err) => (done(), reject(err)),
      rough: Math.ceil(text.length / 4),
      scale,
    });
    w.postMessage({ id, parts, cancel } satisfies CountJob);
  });
}

/** Stops the clients' thread (tests, shutdown); the next count starts a new one. */
export async function stopClientTokenizer(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
