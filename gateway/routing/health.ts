/**
 * Line health: a circuit breaker per line, and the cool-down an upstream asks for with a 429's
 * retry-after. A line that fails FAILURES_TO_OPEN times in a row is taken out for a cool-down;
 * then one request probes it (half-open): success closes the breaker, failure opens it again
 * for twice as long (up to MAX_COOLDOWN_MS).
 */
export const FAILURES_TO_OPEN = 3;
export const BASE_COOLDOWN_MS = 30_000;
export const MAX_COOLDOWN_MS = 10 * 60_000;

export type BreakerState = 'closed' | 'open' | 'half-open';

interface Health {
  failures: number;
  openUntil: number;
  cooldownMs: number;
  probing: boolean;
  /** Set by an upstream 429: the line is skipped until then, without counting as a failure. */
  rateLimitedUntil: number;
}

export class LineHealth {
  private readonly lines = new Map<string, Health>();

  /** The first cool-down after a breaker opens; tests shorten it. */
  constructor(public baseCooldownMs = BASE_COOLDOWN_MS) {}

  private get(id: string): Health {
    let h = this.lines.get(id);
    if (!h) {
      h = { failures: 0, openUntil: 0, cooldownMs: this.baseCooldownMs, probing: false, rateLimitedUntil: 0 };
      this.lines.set(id, h);
    }
    return h;
  }

  state(id: string, now: number): BreakerState {
    const h = this.lines.get(id);
    if (!h || h.failures < FAILURES_TO_OPEN) return 'closed';
    return now < h.openUntil ? 'open' : 'half-open';
  }

  /** Milliseconds until the line takes requests again; 0 = now. */
  waitMs(id: string, now: number): number {
    const h = this.lines.get(id);
    if (!h) return 0;
    const open = this.state(id, now) === 'open' ? h.openUntil - now : 0;
    return Math.max(open, h.rateLimitedUntil - now, 0);
  }

  /** Milliseconds left of the hold an upstream 429 asked for; 0 = none. */
  rateLimitWaitMs(id: string, now: number): number {
    return Math.max(0, (this.lines.get(id)?.rateLimitedUntil ?? 0) - now);
  }

  /** Whether a request may go to the line now; a half-open line lets one probe through at a time. */
  tryUse(id: string, now: number): boolean {
    if (this.waitMs(id, now) > 0) return false;
    const state = this.state(id, now);
    if (state === 'closed') return true;
    const h = this.get(id);
    if (h.probing) return false;
    h.probing = true;
    return true;
  }

  success(id: string): void {
    const h = this.lines.get(id);
    if (!h) return;
    h.failures = 0;
    h.cooldownMs = this.baseCooldownMs;
    h.probing = false;
  }

  failure(id: string, now: number): void {
    const h = this.get(id);
    const wasProbe = h.probing;
    h.probing = false;
    h.failures++;
    if (wasProbe) h.cooldownMs = Math.min(h.cooldownMs * 2, MAX_COOLDOWN_MS);
    if (h.failures >= FAILURES_TO_OPEN) h.openUntil = now + h.cooldownMs;
  }

  rateLimited(id: string, now: number, retryAfterSec: number): void {
    const h = this.get(id);
    h.probing = false;
    h.rateLimitedUntil = Math.max(h.rateLimitedUntil, now + retryAfterSec * 1000);
  }

  /** For the admin API and `lines list`. */
  describe(id: string, now: number): { state: BreakerState; failures: number; waitMs: number } {
    return { state: this.state(id, now), failures: this.lines.get(id)?.failures ?? 0, waitMs: this.waitMs(id, now) };
  }
}
