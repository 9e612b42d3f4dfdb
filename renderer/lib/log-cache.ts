/**
 * The usage log's cached pages, kept whole. Every filter's pages stay in the query cache while the
 * console is open (whether or not the log is on screen), and each new row from the event stream
 * goes into the first page of every cached filter it matches, so leaving the log and coming back
 * loses nothing. Rows the stream could not deliver (it was reconnecting, or a page fetch was in
 * flight and replaced the data it started from) are caught up with one cheap call: the rows after
 * the newest id held (`GET /api/logs?after=`). Each filter holds at most MAX_CACHED_ROWS rows:
 * the oldest go first and come back by paging, so a log left open all day stays small.
 */
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { matches, type LogFilter } from '../../gateway/contract/admin/index.js';
import { admin, type LogEntry } from './api.js';
import { LOG_PAGE, withRows, type LogPage, type LogPages } from './log-pages.js';
import { qk } from './queries.js';

/** The most rows one catch-up call returns; a longer gap refetches from the top. */
const CATCH_UP = 1000;

/** The page of `filter` older than `before` (the newest page without it). */
export async function fetchLogPage(
  filter: LogFilter,
  before: number | undefined,
  signal?: AbortSignal,
): Promise<LogPage> {
  const { entries } = await admin.call('listLogs', {
    query: { ...filter, limit: LOG_PAGE, ...(before === undefined ? {} : { before }) },
    signal,
  });
  return { rows: entries, more: entries.length === LOG_PAGE };
}

function cachedFilters(qc: QueryClient): { key: QueryKey; filter: LogFilter }[] {
  return qc
    .getQueryCache()
    .findAll({ queryKey: qk.logPagesAll })
    .map((q) => ({ key: q.queryKey, filter: q.queryKey[2] as LogFilter }));
}

/** A new row from the event stream, into every cached filter it matches. */
export function addLiveEntry(qc: QueryClient, entry: LogEntry): void {
  for (const { key, filter } of cachedFilters(qc))
    if (matches(filter, entry)) qc.setQueryData<LogPages>(key, (d) => (d ? withRows(d, [entry]) : d));
}

/**
 * Fetches the rows of `filter` newer than the newest one cached and adds them; when more arrived
 * than one call returns, the filter refetches from the top instead.
 */
export async function catchUpLogs(qc: QueryClient, filter: LogFilter): Promise<void> {
  const key = qk.logPages(filter);
  const data = qc.getQueryData<LogPages>(key);
  if (!data) return;
  const top = data.pages[0]?.rows[0]?.id ?? 0;
  const { entries } = await admin.call('listLogs', { query: { ...filter, after: top, limit: CATCH_UP } });
  if (entries.length >= CATCH_UP) await qc.resetQueries({ queryKey: key, exact: true });
  else if (entries.length > 0) qc.setQueryData<LogPages>(key, (d) => (d ? withRows(d, entries) : d));
}

/** After the stream reconnects: every cached filter catches up on what it missed. */
export function catchUpAllLogs(qc: QueryClient): void {
  for (const { filter } of cachedFilters(qc)) void catchUpLogs(qc, filter).catch(() => undefined);
}
