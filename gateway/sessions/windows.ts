/**
 * What one key spent over the rolling budget windows (5 h, 1 d, 7 d, 30 d), kept in memory as
 * per-minute totals for the longest window, with a running sum per window. Adding a charge and
 * reading a window's sum are O(1) amortised: each minute enters once and leaves each window once.
 * Built from the ledger when the key is first seen (Sessions reads it), then kept by settlements.
 */
import { BUDGET_WINDOWS, WINDOW_IDS, type BudgetWindow } from '../contract/sessions.js';

export const MINUTE_MS = 60_000;
const LONGEST_MS = Math.max(...Object.values(BUDGET_WINDOWS));

export class RollingSpend {
  /** Minute start (epoch ms) and what was charged in it, oldest first. */
  private readonly minutes: { at: number; micro: number }[] = [];
  /** Index of the first minute inside each window, and the window's sum. */
  private readonly start = new Map<BudgetWindow, number>();
  private readonly sums = new Map<BudgetWindow, number>();

  constructor(history: Iterable<{ at: number; micro: number }> = []) {
    for (const w of WINDOW_IDS) {
      this.start.set(w, 0);
      this.sums.set(w, 0);
    }
    for (const m of history) this.add(m.at, m.micro);
  }

  add(ts: number, micro: number): void {
    if (micro <= 0) return;
    const at = Math.floor(ts / MINUTE_MS) * MINUTE_MS;
    const last = this.minutes.at(-1);
    if (last && last.at === at) last.micro += micro;
    else if (last && at < last.at) {
      // A charge settled late (a long request): counted in the latest minute, so the windows stay ordered.
      last.micro += micro;
    } else this.minutes.push({ at, micro });
    for (const w of WINDOW_IDS) this.sums.set(w, this.sums.get(w)! + micro);
  }

  /** What was charged within `window` of `now`. */
  spent(window: BudgetWindow, now: number): number {
    this.advance(window, now);
    return this.sums.get(window)!;
  }

  /**
   * When the window will have `needMicro` free under `budgetMicro` again, as more of its minutes
   * leave it (epoch ms); `now` when it already has.
   */
  freesAt(window: BudgetWindow, budgetMicro: number, needMicro: number, now: number): number {
    this.advance(window, now);
    let sum = this.sums.get(window)!;
    const len = BUDGET_WINDOWS[window];
    for (let i = this.start.get(window)!; i < this.minutes.length; i++) {
      if (sum + needMicro <= budgetMicro)
        return i === this.start.get(window) ? now : this.minutes[i - 1]!.at + MINUTE_MS + len;
      sum -= this.minutes[i]!.micro;
    }
    return (this.minutes.at(-1)?.at ?? now) + MINUTE_MS + len;
  }

  private advance(window: BudgetWindow, now: number): void {
    const from = now - BUDGET_WINDOWS[window];
    let i = this.start.get(window)!;
    let sum = this.sums.get(window)!;
    while (i < this.minutes.length && this.minutes[i]!.at + MINUTE_MS <= from) sum -= this.minutes[i++]!.micro;
    this.start.set(window, i);
    this.sums.set(window, sum);
    if (window === '30d' && i >= 1024) this.compact(now);
  }

  /** Drops the minutes older than the longest window, when there are many. */
  private compact(now: number): void {
    for (const w of WINDOW_IDS) if (w !== '30d') this.advance(w, now);
    const first = Math.min(...WINDOW_IDS.map((w) => this.start.get(w)!));
    if (first === 0 || this.minutes[first - 1]!.at + MINUTE_MS > now - LONGEST_MS) return;
    this.minutes.splice(0, first);
    for (const w of WINDOW_IDS) this.start.set(w, this.start.get(w)! - first);
  }
}
