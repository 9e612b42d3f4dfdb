/**
 * Line health: a circuit breaker per line, and the cool-down an upstream asks for with a 429's
 * retry-after. A line whose upstream fails FAILURES_TO_OPEN times in a row is taken out for a
 * cool-down; then one request probes it (half-open). Every probe ends the half-open state, whatever
 * happens to it: the upstream answered (success, or a 4xx about the request) closes the breaker; an
 * upstream failure opens it again for twice as long (up to MAX_COOLDOWN_MS); a probe that proves
 * nothing (the client left before the upstream answered, Tollgate failed before sending) opens it
 * again for the same cool-down. Only the upstream's own failures count; the relay decides which
 * those are (relay/forward.ts).
 */
export const FAILURES_TO_OPEN = 3;
export const BASE_COOLDOWN_MS = 30_000;
export const MAX_COOLDOWN_MS = 10 * 60_000;
/**
 * The longest an upstream 429 may hold a line. Upstreams send retry-after values far in the future
 * (a daily quota, or a garbled header); after this the line is simply tried again.
 */
export const MAX_HOLD_MS = 10 * 60_000;

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What one attempt on a line says about its upstream. */
export type Verdict = 'up' | 'down' | 'unknown';

/** How a request may use a line: as usual (closed), or as the one probe of a half-open line. */
export type Use = 'normal' | 'probe';

interface Health {
  failures: number;
  openUntil: number;
  cooldownMs: number;
  probing: boolean;
  /** Set by an upstream 429: the line is skipped until then, without counting as a failure. */
  rateLimitedUntil: number;
}

/** The last Test of a line (the admin route that asks its upstream for the model list). */
export interface TestResult {
  ok: boolean;
  /** The upstream's HTTP status; null when it did not answer. */
  status: number | null;
  message: string;
  /** Epoch ms. */
  at: number;
}

export class LineHealth {
  private readonly lines = new Map<string, Health>();
  /**
   * Each line's last Test, kept apart from the breaker: a test asks the model list, which some
   * servers do not serve while their chat works, so a failed test never takes a line out of
   * routing. It is shown with the line's health until a later test passes or a request through the
   * line proves the upstream answers; turning the line off and on does not hide it.
   */
  private readonly tests = new Map<string, TestResult>();

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

  /**
   * Whether a request may go to the line now, and how: a half-open line lets one probe through at a
   * time. A `probe` must end with record(…, 'probe') or release(); false = not now.
   */
  tryUse(id: string, now: number): Use | false {
    if (this.waitMs(id, now) > 0) return false;
    const state = this.state(id, now);
    if (state === 'closed') return 'normal';
    const h = this.get(id);
    if (h.probing) return false;
    h.probing = true;
    return 'probe';
  }

  /** Gives back a use that sent nothing (the line's own rate window was full): a probe may start again. */
  release(id: string, use: Use): void {
    if (use === 'probe') this.get(id).probing = false;
  }

  /** What an attempt found; for the probe, this ends the half-open state (open or closed, never stuck). */
  record(id: string, verdict: Verdict, now: number, use: Use = 'normal'): void {
    const h = this.get(id);
    const probe = use === 'probe';
    if (probe) h.probing = false;
    if (verdict === 'up') {
      h.failures = 0;
      h.cooldownMs = this.baseCooldownMs;
      if (this.tests.get(id)?.ok === false) this.tests.delete(id);
    } else if (verdict === 'down') {
      h.failures++;
      if (probe) h.cooldownMs = Math.min(h.cooldownMs * 2, MAX_COOLDOWN_MS);
      if (h.failures >= FAILURES_TO_OPEN) h.openUntil = now + h.cooldownMs;
    } else if (probe) {
      h.openUntil = now + h.cooldownMs;
    }
  }

  /** An upstream 429: the line is held for its retry-after (at most MAX_HOLD_MS). */
  rateLimited(id: string, now: number, retryAfterSec: number): void {
    const h = this.get(id);
    const holdMs = Math.min(Math.max(retryAfterSec, 0) * 1000, MAX_HOLD_MS);
    h.rateLimitedUntil = Math.max(h.rateLimitedUntil, now + holdMs);
  }

  /**
   * Forgets what the line's upstream did: its breaker and its 429 hold. Called when the user
   * disables or enables the line, the one way to say "try it again now".
   */
  forget(id: string): void {
    this.lines.delete(id);
  }

  /** What a Test of the line found. */
  tested(id: string, result: TestResult): void {
    this.tests.set(id, result);
  }

  /** For the admin API and `lines list`. */
  describe(
    id: string,
    now: number,
  ): { state: BreakerState; failures: number; waitMs: number; lastTest: TestResult | null } {
    return {
      state: this.state(id, now),
      failures: this.lines.get(id)?.failures ?? 0,
      waitMs: this.waitMs(id, now),
      lastTest: this.tests.get(id) ?? null,
    };
  }
}
