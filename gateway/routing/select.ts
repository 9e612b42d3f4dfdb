import { GatewayError } from '../core/errors.js';
import { IMPLEMENTED_UPSTREAMS } from '../core/protocol-ids.js';
import type { LineRecord } from '../store/types.js';
import { SlidingWindow } from './rate-limit.js';

/**
 * Picks the line for a model: the highest priority first, then by weight among lines of equal
 * priority. A line over its requests-per-minute limit is skipped; when every line is over its
 * limit the request gets a 429 whose retry-after is the shortest wait.
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

  pick(modelId: string, lines: readonly LineRecord[], now: number): LineRecord {
    const serving = lines.filter((l) => l.enabled && l.models.includes(modelId) && IMPLEMENTED_UPSTREAMS.includes(l.protocol));
    if (serving.length === 0) {
      throw new GatewayError(
        'upstream_unavailable',
        `No line serves the model "${modelId}". Add one in the console or with "tollgate lines add --models ${modelId} …".`,
        { code: 'no_line_for_model' },
      );
    }
    const priorities = [...new Set(serving.map((l) => l.priority))].sort((a, b) => b - a);
    let shortestWait = Infinity;
    for (const p of priorities) {
      let tier = serving.filter((l) => l.priority === p);
      while (tier.length > 0) {
        const line = this.weighted(tier);
        const w = this.window(line);
        if (!w || w.tryTake(now)) return line;
        shortestWait = Math.min(shortestWait, w.waitMs(now));
        tier = tier.filter((l) => l !== line);
      }
    }
    const retryAfter = Math.max(1, Math.ceil(shortestWait / 1000));
    throw new GatewayError('rate_limit', `Rate limit reached: every line serving "${modelId}" is at its requests-per-minute limit. Retry in ${retryAfter} s.`, {
      code: 'line_rate_limited',
      retryAfter,
    });
  }

  private weighted(tier: readonly LineRecord[]): LineRecord {
    const total = tier.reduce((s, l) => s + Math.max(l.weight, 0), 0);
    if (total <= 0) return tier[0]!;
    let r = this.random() * total;
    for (const l of tier) {
      r -= Math.max(l.weight, 0);
      if (r < 0) return l;
    }
    return tier[tier.length - 1]!;
  }
}
