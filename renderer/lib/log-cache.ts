/**
 * The usage log's cached pages, kept whole. Every filter's pages stay in the query cache while the
 * console is open (whether or not the log is on screen), and each new row from the event stream
 * goes into the first page of every cached filter it matches, so leaving the log and coming back
 * loses nothing. Rows the stream could not deliver (it was reconnecting, or a page fetch was in
 * flight and replaced the data it started from) are caught up with one cheap call: the rows after
 * the newest id held (`GET /api/logs?after=`). Each filter holds at most MAX_CACHED_ROWS rows:
 * the oldest go first and come back by paging, so a log left open all day stays small.
 */
import type { InfiniteData, QueryClient, QueryKey } from '@tanstack/react-query';
import { matches, type LogFilter } from '../../gateway/contract/admin/index.js';
import { admin, type LogEntry } from './api.js';
import { qk } from './queries.js';

/** Rows per page the log asks for. */
export const LOG_PAGE = 200;
/** Rows one filter keeps in memory, paged or live. */
export const MAX_CACHED_ROWS = 5000;
/** The most rows one catch-up call returns; a longer gap refetches from the top. */
const CATCH_UP = 1000;

/** One page of the log: its rows, newest first, and whether older rows follow it. */
export interface LogPage {
  rows: LogEntry[];
  more: boolean;
}
export type LogPages = InfiniteData<LogPage, number | undefined>;

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

/**
 * `data` with `fresh` rows (any order) added to its first page where missing, newest first, then
 * cut to MAX_CACHED_ROWS from the oldest end. A row older than every row of the first page
 * belongs to a page already paged past or still to come, and is left to paging.
 */
export function withRows(data: LogPages, fresh: readonly LogEntry[]): LogPages {
  const first = data.pages[0];
  if (!first) return data;
  const floor = first.more ? (first.rows[first.rows.length - 1]?.id ?? 0) : 0;
  const top = first.rows[0]?.id ?? 0;
  const newer = fresh.filter((r) => r.id > top).sort((a, b) => b.id - a.id);
  let rows: LogEntry[];
  if (newer.length === fresh.length) {
    // The usual case, a row newer than any held: no search, no sort of the page.
    if (newer.length === 0) return data;
    rows = [...newer, ...first.rows];
  } else {
    const held = new Set(first.rows.map((r) => r.id));
    const add = fresh.filter((r) => r.id > floor && !held.has(r.id));
    if (add.length === 0) return data;
    rows = [...add, ...first.rows].sort((a, b) => b.id - a.id);
  }
  return cap({ pages: [{ rows, more: first.more }, ...data.pages.slice(1)], pageParams: data.pageParams });
}

function cap(data: LogPages): LogPages {
  let left = MAX_CACHED_ROWS;
  const pages: LogPage[] = [];
  for (const page of data.pages) {
    if (left <= 0) break;
    if (page.rows.length <= left) pages.push(page);
    else pages.push({ rows: page.rows.slice(0, left), more: true });
    left -= page.rows.length;
  }
  if (pages.length === data.pages.length && left >= 0) return data;
  return { pages, pageParams: data.pageParams.slice(0, pages.length) };
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
