import { GatewayError } from '../core/errors.js';
import { echo } from '../core/input.js';
import type { LineRecord } from '../store/types.js';
import { SlidingWindow } from './rate-limit.js';

/**
 * The lines to try for a model, in order: the highest priority first, then a weighted shuffle
 * among lines of equal priority (so weights split the traffic, and the next line on failure is
 * another of the same priority before a lower one). The forward loop (relay/forward.ts) walks
 * this order and skips a line whose breaker is open or that an upstream 429 put on hold; each
 * line's own requests-per-minute window is taken only when the line is actually tried.
 */
export class LineSelector {
  private readonly windows = new Map<string, SlidingWindow>();

  constructor(private readonly random: () => number = Math.random) {}

  private window(line: LineRecord): SlidingWindow | undefined {
    if (line.rpm === null) return undefined;
    let w = this.windows.get(line.id);
    if (!w || w.rpm !== line.rpm) {
      w = new SlidingWindow(line.rpm);
      this.windows.set(line.id, w);
    }
    return w;
  }

  serving(modelId: string, lines: readonly LineRecord[]): LineRecord[] {
    const serving = lines.filter((l) => l.enabled && l.models.includes(modelId));
    if (serving.length === 0) {
      throw new GatewayError(
        'upstream_unavailable',
        `No line serves the model "${echo(modelId)}". Add one in the console or with "tollgate lines add --models ${echo(modelId)} …".`,
        { code: 'no_line_for_model' },
      );
    }
    return serving;
  }

  /** All lines serving the model, in the order to try them. */
  order(modelId: string, lines: readonly LineRecord[]): LineRecord[] {
    const serving = this.serving(modelId, lines);
    // A model on one line (the usual setup) has nothing to order: no set, sort or shuffle per request.
    if (serving.length === 1) return serving;
    const priorities = [...new Set(serving.map((l) => l.priority))].sort((a, b) => b - a);
    return priorities.flatMap((p) => this.weightedShuffle(serving.filter((l) => l.priority === p)));
  }

  /** Takes a slot in the line's requests-per-minute window; returns the wait in ms when there is none (0 = taken). */
  take(line: LineRecord, now: number): number {
    const w = this.window(line);
    if (!w || w.tryTake(now)) return 0;
    return Math.max(1, w.waitMs(now));
  }

  private weightedShuffle(tier: LineRecord[]): LineRecord[] {
    const left = [...tier];
    const out: LineRecord[] = [];
    while (left.length > 0) {
      const total = left.reduce((s, l) => s + Math.max(l.weight, 0), 0);
      let i = 0;
      if (total > 0) {
        let r = this.random() * total;
        i = left.findIndex((l) => (r -= Math.max(l.weight, 0)) < 0);
        if (i < 0) i = left.length - 1;
      }
      out.push(left.splice(i, 1)[0]!);
    }
    return out;
  }
}
