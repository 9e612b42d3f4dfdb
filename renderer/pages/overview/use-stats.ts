import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { StatsBy, StatsQuery, StatsTopQuery } from '../../../gateway/contract/admin/index.js';
import { admin } from '../../lib/api.js';
import { qk } from '../../lib/queries.js';
import type { Window } from './range.js';

/** Minutes east of UTC where the browser's days start (the gateway cuts days there). */
const tz = (): number => -new Date().getTimezoneOffset();

/**
 * The window's figures per bucket and per group, from GET /api/stats. Refreshed when a request is
 * logged (live.ts invalidates every stats query); while a new range or grouping loads, the last
 * answer stays on screen, marked as loading, rather than the chart collapsing.
 */
export function useRangeStats(w: Window | undefined, by: StatsBy) {
  const query: StatsQuery | undefined = w && { since: w.since, until: w.until, bucket: w.bucket, by, tz: tz() };
  return useQuery({
    queryKey: query ? qk.stats(query) : ['stats', 'none'],
    queryFn: async ({ signal }) => (await admin.call('getStats', { query: query!, signal })).rows,
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}

/** The window's largest groups by spend and its totals (GET /api/stats/top). */
export function useRangeTop(w: Window | undefined, by: StatsBy, limit = 5) {
  const query: StatsTopQuery | undefined = w && { since: w.since, until: w.until, by, limit };
  return useQuery({
    queryKey: query ? qk.statsTop(query) : ['stats', 'none'],
    queryFn: ({ signal }) => admin.call('getStatsTop', { query: query!, signal }),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}
