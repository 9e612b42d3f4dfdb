import { useQuery } from '@tanstack/react-query';
import { admin, type StatsRowView } from '../../lib/api.js';
import { qk } from '../../lib/queries.js';

export type StatsBy = 'model' | 'key' | 'line';
const DAY = 86_400_000;

/** Midnight, local time, `days` days ago (0 = today). */
export function localMidnight(days: number, now = new Date()): number {
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() - days);
  return d.getTime();
}

/**
 * The last 30 local days, per day and per model, key or line, from GET /api/stats. Refreshed when
 * a request is logged (live.ts invalidates qk.stats()).
 */
export function useStats(by: StatsBy) {
  return useQuery({
    queryKey: qk.stats(by),
    queryFn: async () => {
      const since = localMidnight(29);
      const until = localMidnight(-1);
      const { rows } = await admin.call('getStats', {
        query: { since, until, bucket: 'day', by, tz: -new Date().getTimezoneOffset() },
      });
      return { since, until, rows };
    },
    staleTime: 10_000,
  });
}

export interface Totals {
  costMicro: number;
  requests: number;
  errors: number;
}

export function totalsSince(rows: readonly StatsRowView[], since: number): Totals {
  const t: Totals = { costMicro: 0, requests: 0, errors: 0 };
  for (const r of rows) {
    if (r.start < since) continue;
    t.costMicro += r.costMicro;
    t.requests += r.requests;
    t.errors += r.errors;
  }
  return t;
}

export { DAY };
