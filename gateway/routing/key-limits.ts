import { GatewayError } from '../core/errors.js';
import type { KeyRecord } from '../store/types.js';
import { SlidingWindow } from './rate-limit.js';

/** Per-key requests per minute and requests in flight, for keys that set them. */
export class KeyLimits {
  private readonly windows = new Map<string, SlidingWindow>();
  private readonly inFlight = new Map<string, number>();

  /** Admits a request or throws 429; on success the caller holds a concurrency slot until release(). */
  admit(key: KeyRecord, now: number): void {
    const max = key.maxConcurrent ?? null;
    const running = this.inFlight.get(key.id) ?? 0;
    if (max !== null && running >= max) {
      throw new GatewayError(
        'rate_limit',
        `Too many requests at once: the key "${key.name}" allows ${max} in flight. Retry when one finishes.`,
        {
          code: 'key_concurrency_limited',
          retryAfter: 1,
        },
      );
    }
    const rpm = key.rpm ?? null;
    if (rpm !== null) {
      let w = this.windows.get(key.id);
      if (!w || w.rpm !== rpm) {
        w = new SlidingWindow(rpm);
        this.windows.set(key.id, w);
      }
      if (!w.tryTake(now)) {
        const retryAfter = Math.max(1, Math.ceil(w.waitMs(now) / 1000));
        throw new GatewayError(
          'rate_limit',
          `Rate limit reached: the key "${key.name}" allows ${rpm} requests per minute. Retry in ${retryAfter} s.`,
          {
            code: 'key_rate_limited',
            retryAfter,
          },
        );
      }
    }
    this.inFlight.set(key.id, running + 1);
  }

  release(keyId: string): void {
    const n = (this.inFlight.get(keyId) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(keyId);
    else this.inFlight.set(keyId, n);
  }
}
