/**
 * Failed authentication, counted and slowed. A key or token cannot be guessed (256 random bits),
 * but a page in the browser or a local process can hammer the gateway with guesses and fill logs
 * and CPU; past a few failures in a short time, each further one is answered later and later.
 * The delay is shared by all callers (every caller is on this machine, so there is no address to
 * tell them apart), and a correct key is never delayed.
 */
export class AuthFailures {
  /** Failures since start (what the status route reports). */
  total = 0;
  private recent: number[] = [];

  constructor(
    /** Failures within the window answered at once. */
    private readonly free = 10,
    private readonly windowMs = 10_000,
    /** Added per failure beyond the free ones, up to maxDelayMs. */
    private readonly stepMs = 100,
    private readonly maxDelayMs = 2_000,
  ) {}

  /** Records a failure; returns how long to wait before answering it. */
  fail(now = Date.now()): number {
    this.total++;
    const since = now - this.windowMs;
    while (this.recent.length > 0 && this.recent[0]! <= since) this.recent.shift();
    // Bounded: beyond the count that reaches the longest delay, older entries add nothing.
    if (this.recent.length > this.free + this.maxDelayMs / this.stepMs) this.recent.shift();
    this.recent.push(now);
    const excess = this.recent.length - this.free;
    return excess <= 0 ? 0 : Math.min(this.maxDelayMs, excess * this.stepMs);
  }
}
