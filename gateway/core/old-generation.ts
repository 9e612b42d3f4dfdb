/**
 * A bound on the garbage the old generation piles up under load (docs/performance.md, "Memory, idle
 * and at peak"). Under load, request state still in flight at two scavenges (about 1.5 KB a request
 * at 64 concurrent requests) is promoted and dies there soon after. V8 collects the old generation
 * when it reaches a limit it sets from the live size times a growing factor of up to 4, so a gateway
 * with about 25 MB live let its old space reach 70–100 MB of mostly garbage before a full
 * collection: the largest part of its peak RSS. Lowering that factor (`--heap-growing-percent`)
 * collects far more often than needed and cost 5–25 % CPU per request in `bench/request-cost.ts`.
 *
 * Here a full collection is asked for (on a later task, as V8 schedules its own) once the old
 * space holds `slackBytes` more than the last full collection left live: with the default, one
 * collection of about 25 MB live per roughly 16,000 promoted requests. Nothing changes while the
 * old space stays under the bound, and V8's own limit still applies below it.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';
import { collector, type Collector } from './full-gc.js';

/** Old-space bytes above the last full collection's survivors that trigger the next one. */
export const OLD_GENERATION_SLACK_BYTES = 12 * 2 ** 20;

/** Whether the old space has grown past the bound: `used` over what the last full collection left plus the slack. */
export function overBound(used: number, liveAfterFull: number, slackBytes: number): boolean {
  return used > liveAfterFull + slackBytes;
}

function oldSpaceUsed(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
}

export interface OldGenerationBound {
  /** Full collections this bound asked for. */
  readonly requested: number;
  stop(): void;
}

/**
 * Watches the process's collections (after each scavenge the old space is checked; after each full
 * collection its survivors are the new base) and asks for a full collection past the bound.
 */
export function boundOldGeneration(slackBytes = OLD_GENERATION_SLACK_BYTES): OldGenerationBound {
  const gc: Collector = collector();
  let liveAfterFull = oldSpaceUsed();
  let pending = false;
  let requested = 0;
  const observer = new PerformanceObserver((list) => {
    let full = false;
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) full = true;
    }
    const used = oldSpaceUsed();
    if (full) {
      liveAfterFull = used;
      pending = false;
      return;
    }
    if (pending || !overBound(used, liveAfterFull, slackBytes)) return;
    pending = true;
    requested++;
    Promise.resolve(gc({ type: 'major', execution: 'async' })).catch(() => (pending = false));
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    get requested() {
      return requested;
    },
    stop: () => observer.disconnect(),
  };
}
