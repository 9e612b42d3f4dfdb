/**
 * Requests-per-minute over a sliding 60-second window: a ring of the last `rpm` admission times.
 * A request is admitted when the oldest of those is more than a minute old.
 */
export class SlidingWindow {
  private readonly times: number[];
  private next = 0;

  constructor(readonly rpm: number) {
    this.times = new Array<number>(rpm).fill(-Infinity);
  }

  /** Milliseconds until a request would be admitted; 0 = now. */
  waitMs(now: number): number {
    const oldest = this.times[this.next]!;
    return Math.max(0, oldest + 60_000 - now);
  }

  /** Admits and records a request if the window has room; returns whether it did. */
  tryTake(now: number): boolean {
    if (this.waitMs(now) > 0) return false;
    this.times[this.next] = now;
    this.next = (this.next + 1) % this.rpm;
    return true;
  }
}
