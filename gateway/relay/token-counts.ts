/**
 * Token counts that clients ask for (count_tokens, Gemini's countTokens): answered locally, never
 * billed, but not free to abuse. Each goes through its key's limits like a model request (`rpm`,
 * `maxConcurrent`, routing/key-limits.ts), a key may have at most MAX_CHARS_PER_KEY_MINUTE
 * characters counted a minute, a single count is bounded by the tokenizer's own sampling
 * (core/token-chunks.ts MAX_COUNTED_CHARS), and the work runs in the clients' queue of the
 * token-counting thread (core/client-tokenizer.ts), which takes turns with billing's queue chunk by
 * chunk, so billing's counts never wait behind a client's. Answered and refused counts are counted
 * for the status (`tokenCounts` in GET /api/status).
 */
import { countClientTokens } from '../core/client-tokenizer.js';
import { GatewayError } from '../core/errors.js';
import type { KeyLimits } from '../routing/key-limits.js';
import type { KeyRecord } from '../store/types.js';

/** About a million tokens a minute per key: far beyond what a coding tool asks, and a bound on CPU. */
export const MAX_CHARS_PER_KEY_MINUTE = 4_000_000;

export type CountFn = (text: string, signal?: AbortSignal) => Promise<number>;

export class ClientTokenCounts {
  answered = 0;
  refused = 0;
  private readonly windows = new Map<string, { start: number; chars: number }>();

  constructor(
    private readonly limits: Pick<KeyLimits, 'admit' | 'release'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs one client count for `key`: admitted by the key's limits, its text charged to the key's minute. */
  async run<T>(key: KeyRecord, work: (count: CountFn) => Promise<T>): Promise<T> {
    try {
      this.limits.admit(key, this.now());
    } catch (err) {
      this.refused++;
      throw err;
    }
    try {
      const result = await work((text, signal) => {
        this.charge(key, text.length);
        return countClientTokens(text, signal);
      });
      this.answered++;
      return result;
    } catch (err) {
      if (err instanceof GatewayError && err.status === 429) this.refused++;
      throw err;
    } finally {
      this.limits.release(key.id);
    }
  }

  private charge(key: KeyRecord, chars: number): void {
    const now = this.now();
    let w = this.windows.get(key.id);
    if (!w || now - w.start >= 60_000) {
      w = { start: now, chars: 0 };
      this.windows.set(key.id, w);
    }
    if (w.chars + chars > MAX_CHARS_PER_KEY_MINUTE) {
      const retryAfter = Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000));
      throw new GatewayError(
        'rate_limit',
        `Token counting limit reached: the key "${key.name}" may have ${MAX_CHARS_PER_KEY_MINUTE.toLocaleString('en')} characters counted a minute. Retry in ${retryAfter} s.`,
        { code: 'count_limit_reached', retryAfter },
      );
    }
    w.chars += chars;
  }
}
