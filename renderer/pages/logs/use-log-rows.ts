import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import type { LogFilter } from '../../../gateway/contract/admin/index.js';
import { catchUpLogs, fetchLogPage } from '../../lib/log-cache.js';
import type { LogOrder } from '../../lib/log-pages.js';
import { qk } from '../../lib/queries.js';

/**
 * The log as the server pages it, in one of its two orders (newest first, `before` = the last id
 * seen; oldest first, `after` = the last id seen), kept whole by lib/log-cache.ts: rows that
 * arrive on the event stream go into these pages whether or not the page is open. Each time the
 * pages settle (mounted from the cache, first fetch, a page more) the rows after the newest one
 * held are fetched, so a row that landed while a fetch was in flight, or while the stream was
 * down, is never missing.
 */
export function useLogRows(filter: LogFilter, order: LogOrder = 'newest') {
  const qc = useQueryClient();
  const pages = useInfiniteQuery({
    queryKey: qk.logPages(filter, order),
    queryFn: ({ pageParam, signal }) => fetchLogPage(filter, pageParam, signal, order),
    initialPageParam: undefined as number | undefined,
    // An oldest-first page with no rows after a full one ends where the one before it did.
    getNextPageParam: (last, _all, lastParam) =>
      last.more ? (last.rows[last.rows.length - 1]?.id ?? lastParam) : undefined,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const settled = pages.data !== undefined && !pages.isFetching;
  useEffect(() => {
    if (settled) void catchUpLogs(qc, filter, order).catch(() => undefined);
  }, [qc, filter, order, settled]);

  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.rows) ?? [], [pages.data]);

  return {
    rows,
    isPending: pages.isPending,
    error: pages.error,
    hasMore: pages.hasNextPage,
    loadMore: () => {
      if (pages.hasNextPage && !pages.isFetchingNextPage) void pages.fetchNextPage();
    },
    loadingMore: pages.isFetchingNextPage,
  };
}
