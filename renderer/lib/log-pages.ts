/**
 * The usage log's pages as the query cache holds them, and the rules for adding rows to them. The
 * log is in the ledger's order, which the server pages both ways: newest first (`before` = the
 * last id seen), where new rows go into the first page and each filter holds at most
 * MAX_CACHED_ROWS rows (the oldest go first and come back by paging); or oldest first (`after` =
 * the last id seen), where a new row belongs at the very end, so it is added only once that end is
 * held. Pure, so it is tested without a browser.
 */
import type { InfiniteData } from '@tanstack/react-query';
import type { LogEntry } from '../../gateway/contract/admin/index.js';

/** Rows per page the log asks for. */
export const LOG_PAGE = 200;
/** Rows one filter keeps in memory, paged or live. */
export const MAX_CACHED_ROWS = 5000;
/** The two orders the server can page the log in (`GET /api/logs` with `before`, or with `after`). */
export type LogOrder = 'newest' | 'oldest';
/** One page of the log: its rows in the log's order, and whether more rows follow it. */
export interface LogPage {
  rows: LogEntry[];
  more: boolean;
}
export type LogPages = InfiniteData<LogPage, number | undefined>;

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

/**
 * Oldest first: the id of the last row held, or the cursor its last page was fetched after when
 * that page is empty (0 for an empty log). Rows newer than it are what the end has not got yet.
 */
export function lastIdHeld(data: LogPages): number {
  const i = data.pages.length - 1;
  return data.pages[i]?.rows.at(-1)?.id ?? data.pageParams[i] ?? 0;
}

/** Oldest first: the same pages with the last marked as having more, so paging goes on from it. */
export function withMoreAtEnd(data: LogPages): LogPages {
  const i = data.pages.length - 1;
  const last = data.pages[i];
  if (!last || last.more) return data;
  return { pages: [...data.pages.slice(0, i), { rows: last.rows, more: true }], pageParams: data.pageParams };
}

/**
 * Oldest first: `fresh` rows (any order) after the last row held, but only when the last page is the
 * log's end (no more to page) and the filter holds fewer than MAX_CACHED_ROWS rows; otherwise the
 * end is marked as having more, so paging reaches them in order.
 */
export function withRowsAtEnd(data: LogPages, fresh: readonly LogEntry[]): LogPages {
  const lastIndex = data.pages.length - 1;
  const last = data.pages[lastIndex];
  if (!last) return data;
  const end = lastIdHeld(data);
  const newer = fresh.filter((r) => r.id > end).sort((a, b) => a.id - b.id);
  if (newer.length === 0) return data;
  const held = data.pages.reduce((n, p) => n + p.rows.length, 0);
  if (last.more || held + newer.length > MAX_CACHED_ROWS) return withMoreAtEnd(data);
  return {
    pages: [...data.pages.slice(0, lastIndex), { rows: [...last.rows, ...newer], more: false }],
    pageParams: data.pageParams,
  };
}
