import type { LineRecord } from '../store/types.js';

/**
 * Which line a conversation last used, so that its next request goes there again while that line
 * is healthy. Upstream prompt caches are per account and per server: a model served by two lines
 * of equal priority would otherwise alternate between them by weight, and each cache would stay
 * cold (a cached prompt token costs a tenth of an uncached one or less). The scope is the
 * request's session where the request context has one, else its key and model.
 *
 * Only the order among lines of the first priority changes: a line of higher priority still comes
 * first, and a remembered line that is open, on hold or at its rate limit is skipped by the forward
 * loop like any other, so the conversation moves on failover and then sticks to the new line.
 * Kept in memory, bounded, forgotten after an hour without use (caches expire sooner than that).
 */
export class LineAffinity {
  private readonly last = new Map<string, { lineId: string; at: number }>();

  constructor(
    private readonly maxEntries = 10_000,
    private readonly ttlMs = 60 * 60_000,
  ) {}

  /** The scope of a request: its session when it has one, else its key and model. */
  static scope(keyId: string, modelId: string, sessionId?: string | null): string {
    return sessionId ? `session\u0000${sessionId}\u0000${modelId}` : `key\u0000${keyId}\u0000${modelId}`;
  }

  /** `candidates` (in the selector's order) with the remembered line first, when it is among the first priority's lines. */
  prefer(scope: string, candidates: LineRecord[], now: number): LineRecord[] {
    const seen = this.last.get(scope);
    if (!seen) return candidates;
    if (now - seen.at > this.ttlMs) {
      this.last.delete(scope);
      return candidates;
    }
    const i = candidates.findIndex((l) => l.id === seen.lineId);
    if (i <= 0 || candidates[i]!.priority !== candidates[0]!.priority) return candidates;
    return [candidates[i]!, ...candidates.slice(0, i), ...candidates.slice(i + 1)];
  }

  /** The line that answered the scope's request. */
  record(scope: string, lineId: string, now: number): void {
    this.last.delete(scope);
    this.last.set(scope, { lineId, at: now });
    // A Map iterates in insertion order: the first entry is the one used longest ago.
    if (this.last.size > this.maxEntries) this.last.delete(this.last.keys().next().value!);
  }
}
