import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { matches, type LogFilter } from '../../../gateway/contract/admin/index.js';
import { admin, type LogEntry } from '../../lib/api.js';
import { qk } from '../../lib/queries.js';
import { onLogEntry } from '../../lib/live.js';

export const PAGE = 200;

/**
 * The log as the server pages it (newest first, `before` = the last id seen), plus the rows that
 * arrive on the event stream while the page is open and match the filter. Older pages are fetched
 * once and kept, so scrolling deep into a large log costs nothing while new rows arrive.
 */
export function useLogRows(filter: LogFilter) {
  const pages = useInfiniteQuery({
    queryKey: qk.logPages(filter),
    queryFn: async ({ pageParam, signal }) =>
      (
        await admin.call('listLogs', {
          query: { ...filter, limit: PAGE, ...(pageParam === undefined ? {} : { before: pageParam }) },
          signal,
        })
      ).entries,
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.length < PAGE ? undefined : last[last.length - 1]!.id),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const [live, setLive] = useState<{ filter: LogFilter; rows: LogEntry[] }>({ filter, rows: [] });
  useEffect(
    () =>
      onLogEntry((e) => {
        if (matches(filter, e)) setLive((old) => ({ filter, rows: [e, ...(old.filter === filter ? old.rows : [])] }));
      }),
    [filter],
  );

  const rows = useMemo(() => {
    const paged = pages.data?.pages.flat() ?? [];
    const top = paged[0]?.id ?? 0;
    const fresh = live.filter === filter ? live.rows.filter((e) => e.id > top) : [];
    return fresh.length > 0 ? [...fresh, ...paged] : paged;
  }, [pages.data, live, filter]);

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
