/**
 * Token counting off the main thread. The o200k tokenizer runs in one worker thread
 * (core/tokenizer-worker.ts), started on first use (its tables cost ~70 MB), so no count can stop
 * the gateway's other requests or the admin API; the work is linear in the text and capped
 * (core/token-chunks.ts); a count whose request has gone (the client hung up) is abandoned
 * between two chunks. Should the worker die, the counts it owed are answered with the rough
 * estimate of four characters a token, and the next count starts a new worker.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sample } from './token-chunks.js';
import type { CountJob, CountReply } from './tokenizer-worker.js';

interface Waiting {
  resolve(tokens: number): void;
  reject(err: unknown): void;
  /** What the count is answered with if the worker dies. */
  rough: number;
  scale: number;
}

let worker: Worker | undefined;
const waiting = new Map<number, Waiting>();
let nextId = 1;

/** Whether the tokenizer has been started (by a count_tokens call or a usage fallback). */
export function tokenizerLoaded(): boolean {
  return worker !== undefined;
}

/**
 * Tokens of `text` in o200k_base (GPT-4o / GPT-5 family), counted in the worker; an estimate from
 * samples beyond MAX_COUNTED_CHARS. Rejects with the signal's reason once `signal` aborts.
 */
export function countTokens(text: string, signal?: AbortSignal): Promise<number> {
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

/** Takes a count off the waiting list; the worker stops keeping the process alive once none is left. */
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
    const lost = (err?: unknown): void => {
      if (worker !== w) return;
      worker = undefined;
      if (err)
        process.stderr.write(
          `tollgate: the token-counting thread failed (${(err as Error).message ?? String(err)}); counts it owed are estimated\n`,
        );
      for (const id of [...waiting.keys()]) {
        const job = settle(id)!;
        job.resolve(job.rough);
      }
    };
    w.on('error', lost);
    w.on('exit', () => lost());
    worker = w;
  }
  worker.ref();
  return worker;
}

/** The worker's file sits beside this one: .js when built, .ts when run from the sources. */
export function spawnWorker(): Worker {
  const fromSources = extname(fileURLToPath(import.meta.url)) === '.ts';
  const file = new URL(`./tokenizer-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return new Worker(file);
  // Under tsx (the tests, `npm run dev`) a worker thread does not get tsx's loader from the
  // command line, so it registers it before loading the TypeScript file.
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); })`,
    { eval: true },
  );
}
