/**
 * The usage log: its entries a page at a time under the log filter, hourly or daily figures over
 * a range, and the body of a logged request where one was kept. The CSV export (admin/logs-csv.ts)
 * reads the same filter.
 */
import type { Gateway } from '../compose/gateway.js';
import { settingsOf } from '../store/settings.js';
import {
  AdminError,
  logFilterOf,
  type LogEntry,
  type LogFilter,
  type LogSummaryView,
  type LogsQuery,
  type RequestBodyView,
  type StatsQuery,
  type StatsRowView,
  type StatsTopQuery,
  type StatsTopView,
} from '../contract/admin/index.js';

/** The entries the filter matches, newest first, a page at a time; oldest first after `after`. */
export function listLogs(g: Gateway, q: LogsQuery): LogEntry[] {
  return g.ledger.reports.logs({ ...logFilterOf(q), limit: q.limit, beforeId: q.before, afterId: q.after });
}

/** The count, tokens and cost of every entry the filter matches (not only the page shown). */
export function logSummary(g: Gateway, f: LogFilter): LogSummaryView {
  return g.ledger.reports.logSummary(logFilterOf(f));
}

const DAY_MS = 86_400_000;

/** Hourly figures over at most 93 days, daily over at most ten years: a bounded answer. */
export function stats(g: Gateway, q: StatsQuery): StatsRowView[] {
  if (q.until <= q.since) throw new AdminError(400, 'invalid_request', 'until must be after since.');
  const max = q.bucket === 'hour' ? 93 * DAY_MS : 3660 * DAY_MS;
  if (q.until - q.since > max)
    throw new AdminError(400, 'invalid_request', `A ${q.bucket}ly range spans at most ${max / DAY_MS} days.`);
  return g.ledger.reports.stats({ since: q.since, until: q.until, bucket: q.bucket, by: q.by, tzOffsetMinutes: q.tz });
}

/** The largest groups of a range (five unless asked) and its totals, over at most ten years. */
export function statsTop(g: Gateway, q: StatsTopQuery): StatsTopView {
  if (q.until <= q.since) throw new AdminError(400, 'invalid_request', 'until must be after since.');
  if (q.until - q.since > 3660 * DAY_MS)
    throw new AdminError(400, 'invalid_request', 'A range spans at most 3660 days.');
  return g.ledger.reports.top({ since: q.since, until: q.until, by: q.by, limit: q.limit ?? 5 });
}

export function requestBody(g: Gateway, requestId: string): RequestBodyView {
  const found = g.bodies.get(requestId);
  if (!found) {
    const why = settingsOf(g.config.data).storeBodies
      ? 'it was not kept (pruned, or sent before storing was on)'
      : 'storing request bodies is off (Settings)';
    throw new AdminError(404, 'not_found', `No body is kept for request ${requestId}: ${why}.`);
  }
  return found;
}
