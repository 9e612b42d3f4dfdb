/**
 * The usage log's cached pages, kept whole. Every filter's pages stay in the query cache while the
 * console is open (whether or not the log is on screen), and each new row from the event stream
 * goes into every cached filter it matches (lib/log-pages.ts: at the top of a newest-first log,
 * at the end of an oldest-first one that holds its end), so leaving the log and coming back loses
 * nothing. Rows the stream could not deliver (it was reconnecting, or a page fetch was in flight
 * and replaced the data it started from) are caught up with one cheap call: the rows after the
 * newest id held (`GET /api/logs?after=`). Each filter holds at most MAX_CACHED_ROWS rows: the
 * oldest go first and come back by paging, so a log left open all day stays small.
 */
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { matches, type LogFilter } from '../../gateway/contract/admin/index.js';
import { admin, type LogEntry } from './api.js';
import {
  LOG_PAGE,
  lastIdHeld,
  withMoreAtEnd,
  withRows,
  withRowsAtEnd,
  type LogOrder,
  type LogPage,
  type LogPages,
} from './log-pages.js';
import { qk } from './queries.js';

/** The most rows one catch-up call returns; a longer gap refetches from the top. */
const CATCH_UP = 1000;

/**
 * The page of `filter` after `cursor` in `order`: newest first, the rows older than `cursor` (the
 * newest page without it); oldest first, the rows newer than `cursor` (the oldest page without it).
 */
export async function fetchLogPage(
  filter: LogFilter,
  cursor: number | undefined,
  signal?: AbortSignal,
  order: LogOrder = 'newest',
): Promise<LogPage> {
  const at =
    order === 'oldest'
      ? { after: cursor ?? 0 }
      : cursor === undefined
        ? {}
        : ({ before: cursor } as { before?: number });
  const { entries } = await admin.call('listLogs', { query: { ...filter, limit: LOG_PAGE, ...at }, signal });
  return { rows: entries, more: entries.length === LOG_PAGE };
}

function cachedFilters(qc: QueryClient): { key: QueryKey; filter: LogFilter; order: LogOrder }[] {
  return qc
    .getQueryCache()
    .findAll({ queryKey: qk.logPagesAll })
    .map((q) => ({
      key: q.queryKey,
      filter: q.queryKey[2] as LogFilter,
      order: q.queryKey[3] === 'oldest' ? 'oldest' : 'newest',
    }));
}

const add = (order: LogOrder, d: LogPages, rows: LogEntry[]): LogPages =>
  order === 'oldest' ? withRowsAtEnd(d, rows) : withRows(d, rows);

/** A new row from the event stream, into every cached filter it matches. */
export function addLiveEntry(qc: QueryClient, entry: LogEntry): void {
  for (const { key, filter, order } of cachedFilters(qc))
    if (matches(filter, entry)) qc.setQueryData<LogPages>(key, (d) => (d ? add(order, d, [entry]) : d));
}

/** The newest id `data` holds in `order`, or null when it does not hold the log's newest end. */
function newestHeld(data: LogPages, order: LogOrder): number | null {
  if (order === 'newest') return data.pages[0]?.rows[0]?.id ?? 0;
  const last = data.pages.at(-1);
  return !last || last.more ? null : lastIdHeld(data);
}

/**
 * Fetches the rows of `filter` newer than the newest one cached and adds them; when more arrived
 * than one call returns, a newest-first filter refetches from the top instead, an oldest-first one
 * pages on to them. An oldest-first log that has
 * not paged to its end yet has nothing to catch up: paging brings those rows.
 */
export async function catchUpLogs(qc: QueryClient, filter: LogFilter, order: LogOrder = 'newest'): Promise<void> {
  const key = qk.logPages(filter, order);
  const data = qc.getQueryData<LogPages>(key);
  if (!data) return;
  const top = newestHeld(data, order);
  if (top === null) return;
  const { entries } = await admin.call('listLogs', { query: { ...filter, after: top, limit: CATCH_UP } });
  if (entries.length >= CATCH_UP) {
    if (order === 'newest') await qc.resetQueries({ queryKey: key, exact: true });
    // Oldest first, the end is no longer held: paging goes on from the last row kept.
    else qc.setQueryData<LogPages>(key, (d) => (d ? withMoreAtEnd(d) : d));
  } else if (entries.length > 0) qc.setQueryData<LogPages>(key, (d) => (d ? add(order, d, entries) : d));
}

/** After the stream reconnects: every cached filter catches up on what it missed. */
export function catchUpAllLogs(qc: QueryClient): void {
  for (const { filter, order } of cachedFilters(qc)) void catchUpLogs(qc, filter, order).catch(() => undefined);
}
