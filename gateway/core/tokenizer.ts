/**
 * Token counting off the main thread. The o200k tokenizer runs in one worker thread
 * (core/tokenizer-worker.ts), started on first use (it holds about 36 MB once its tables are
 * loaded), so no count can stop the gateway's other requests or the admin API; the work is linear
 * in the text and capped (core/token-chunks.ts); a count whose request has gone (the client hung
 * up) is abandoned between two chunks. Billing's counts and the clients' (core/client-tokenizer.ts)
 * have a queue each in that one thread, which takes turns between them chunk by chunk, so a
 * client's counts never hold billing's for more than a chunk, and the tables are loaded once
 * (docs/performance.md, "One token-counting thread"). Should the worker die, the counts it owed are
 * answered with the rough estimate of four characters a token, and the next count starts a new
 * worker. A thread with nothing to count for TOKENIZER_IDLE_MS is stopped, so a desktop app that
 * counted once (a client that hung up) does not hold the tables all day.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sample } from './token-chunks.js';
import type { CountJob, CountLane, CountReply } from './tokenizer-worker.js';

interface Waiting {
  resolve(tokens: number): void;
  reject(err: unknown): void;
  /** What the count is answered with if the worker dies. */
  rough: number;
  scale: number;
}

/**
 * How long the thread may have nothing to count before it is stopped. Starting it again costs about
 * a second of its own CPU (spawning it and loading the tables) and delays only that first count,
 * which settles a request after its answer; holding it costs about 36 MB for as long as it runs
 * (docs/performance.md, "The token-counting thread, stopped when idle").
 */
export const TOKENIZER_IDLE_MS = 5 * 60_000;

/**
 * The token-counting thread: started on the first count, unref'd while idle, stopped after
 * `idleMs` without a count, and replaced on the next count should it die or have been stopped (the
 * counts a dead one owed get the rough estimate).
 */
class TokenizerThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  idleMs = TOKENIZER_IDLE_MS;

  /** Whether the thread has been started (and not lost or stopped since). */
  loaded(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Tokens of `text` in o200k_base (GPT-4o / GPT-5 family), counted in the thread; an estimate
   * from samples beyond MAX_COUNTED_CHARS. Rejects with the signal's reason once `signal` aborts.
   */
  count(text: string, lane: CountLane, signal?: AbortSignal): Promise<number> {
    if (text === '') return Promise.resolve(0);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { parts, scale } = sample(text);
    const cancel = new SharedArrayBuffer(4);
    const id = this.nextId++;
    const w = this.started();
    return new Promise<number>((resolve, reject) => {
      const onAbort = (): void => {
        Atomics.store(new Int32Array(cancel), 0, 1);
        this.settle(id)?.reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      this.waiting.set(id, {
        resolve: (n) => (done(), resolve(n)),
        reject: (err) => (done(), reject(err)),
        rough: Math.ceil(text.length / 4),
        scale,
      });
      w.postMessage({ id, lane, parts, cancel } satisfies CountJob);
    });
  }

  /** The thread's id while it runs (worker_threads' threadId). */
  threadId(): number | undefined {
    return this.worker?.threadId;
  }

  /** Stops the thread (tests, shutdown); the next count starts a new one. */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  /**
   * Takes a count off the waiting list; once none is left the worker stops keeping the process
   * alive, and is stopped if no count comes within `idleMs`.
   */
  private settle(id: number): Waiting | undefined {
    const w = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0 && this.worker) {
      this.worker.unref();
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        if (this.waiting.size === 0) void this.stop();
      }, this.idleMs).unref();
    }
    return w;
  }

  private started(): Worker {
    clearTimeout(this.idleTimer);
    if (!this.worker) {
      const w = spawnWorker();
      w.on('message', (reply: CountReply) => {
        const job = this.settle(reply.id);
        if (job && 'tokens' in reply) job.resolve(Math.ceil(reply.tokens * job.scale));
      });
      const lost = (err?: unknown): void => {
        if (this.worker !== w) return;
        this.worker = undefined;
        if (err)
          process.stderr.write(
            `tollgate: the token-counting thread failed (${(err as Error).message ?? String(err)}); counts it owed are estimated\n`,
          );
        for (const id of [...this.waiting.keys()]) {
          const job = this.settle(id)!;
          job.resolve(job.rough);
        }
      };
      w.on('error', lost);
      w.on('exit', () => lost());
      this.worker = w;
    }
    this.worker.ref();
    return this.worker;
  }
}

const thread = new TokenizerThread();

/** Whether the tokenizer has been started (by a count_tokens call or a usage fallback). */
export function tokenizerLoaded(): boolean {
  return thread.loaded();
}

/**
 * Tokens of `text` in billing's queue: counts for a stream cut short, a client gone before the
 * answer, or an upstream that reported no usage (TokenizerThread.count).
 */
export function countTokens(text: string, signal?: AbortSignal): Promise<number> {
  return thread.count(text, 'billing', signal);
}

/** Tokens of `text` in the clients' queue (count_tokens, Gemini's countTokens): core/client-tokenizer.ts. */
export function countInClientsQueue(text: string, signal?: AbortSignal): Promise<number> {
  return thread.count(text, 'clients', signal);
}

/** The token-counting thread's id while it runs, for tests: one thread serves both queues. */
export function tokenizerThreadId(): number | undefined {
  return thread.threadId();
}

/** Stops the thread (tests, shutdown); the next count starts a new one. */
export function stopTokenizer(): Promise<void> {
  return thread.stop();
}

/** Tests: how long the thread may be idle before it is stopped (TOKENIZER_IDLE_MS otherwise). */
export function setTokenizerIdleMs(ms: number): void {
  thread.idleMs = ms;
}

/**
 * The thread's young generation is held to 4 MB. V8 grows it to 16–32 MB under a run of counts and
 * keeps it, while a count's garbage dies young and the tables live in the old generation: with
 * the bound, the thread held 75 MB instead of 100 MB after the counts of the tokenizer's tests,
 * and counted as fast (docs/performance.md, "Memory, idle and at peak"). Its input is bounded too (at
 * most MAX_COUNTED_CHARS a count, core/token-chunks.ts), whatever the size of a request's body.
 */
const TOKENIZER_LIMITS = { maxYoungGenerationSizeMb: 4 } as const;

/** The worker's file sits beside this one: .js when built, .ts when run from the sources. */
function spawnWorker(): Worker {
  const fromSources = extname(fileURLToPath(import.meta.url)) === '.ts';
  const file = new URL(`./tokenizer-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  const resourceLimits = TOKENIZER_LIMITS;
  if (!fromSources) return new Worker(file, { resourceLimits });
  // Under tsx (the tests, `npm run dev`) a worker thread does not get tsx's loader from the
  // command line, so it registers it before loading the TypeScript file.
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); })`,
    { eval: true, resourceLimits },
  );
}
