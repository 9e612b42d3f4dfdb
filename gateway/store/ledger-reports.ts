/**
 * Reading the ledger for people: the usage log with filters, spend and tokens per hour or day,
 * CSV export, and the wallet's transactions. Everything is computed in SQL on indexed columns, so
 * it stays fast at millions of rows (bench/ledger.ts measures it; docs/performance.md has the
 * figures). Writing stays in ledger.ts.
 */
import type Database from 'better-sqlite3';
import type { LogFilter } from '../contract/admin/log-filter.js';
import type { LogEntry } from './ledger.js';
import type { RequestRecord, WalletTxRecord } from './ledger-records.js';
import { toEntry } from './ledger-rows.js';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import { RARE_STATUS } from './ledger-schema.js';
import { CACHE_WRITES_SQL, HOUR_MS, ROLLUP_DIMENSIONS, type RollupDimension } from './usage-rollup.js';

/** A page of the usage log: the filter (the contract's, contract/admin/log-filter.ts) and where the page is. */
export interface LogPageQuery extends LogFilter {
  limit?: number | undefined;
  /** Entries older than this id (the last id of the page before). */
  beforeId?: number | undefined;
  /** Entries newer than this id, oldest first (for following the log as it grows). */
  afterId?: number | undefined;
}

export type StatsBucket = 'hour' | 'day';
export type StatsGroup = RollupDimension;

export interface StatsQuery {
  since: number;
  until: number;
  bucket: StatsBucket;
  by: StatsGroup;
  /** Minutes east of UTC where days start (the console sends its own); 0 = UTC days. */
  tzOffsetMinutes?: number | undefined;
}

export interface StatsRow {
  /** Epoch ms where the hour or day starts (0 in `top()`, whose rows span the whole range). */
  start: number;
  /** The model, key, line, tool, project or session; null where a row has none. */
  group: string | null;
  requests: number;
  errors: number;
  costMicro: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The largest groups of a range and what the whole range adds up to (`top()`). */
export interface StatsTop {
  total: Omit<StatsRow, 'start' | 'group'>;
  /** Largest spend first, then most requests; at most `limit`. */
  rows: Omit<StatsRow, 'start'>[];
  /** How many groups had requests in the range, shown or not. */
  groups: number;
}

/** What caching saved one key on one day (savings). */
export interface SavingsRow {
  /** Epoch ms where the day starts. */
  start: number;
  /** The key's name; null for requests refused before a key was known. */
  key: string | null;
  requests: number;
  /** Every prompt token (uncached, cache read, cache write). */
  promptTokens: number;
  cacheReadTokens: number;
  costMicro: number;
  savedMicro: number;
}

/** A line's requests over a window (lineUsage). */
export interface LineUsage {
  line: string;
  requests: number;
  errors: number;
  p50LatencyMs: number;
  lastErrorStatus: number | null;
  lastErrorMessage: string | null;
  lastErrorAt: number | null;
}

/** What every entry a filter matches adds up to (the usage log's footer). */
export interface LogSummary {
  requests: number;
  errors: number;
  costMicro: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface WalletTransaction {
  id: number;
  ts: number;
  kind: 'topup' | 'adjustment';
  amountMicro: number;
  note: string | null;
}

const BUCKET_MS: Record<StatsBucket, number> = { hour: HOUR_MS, day: 24 * HOUR_MS };

/** The columns of a stats row: the rollup holds counts already; request rows are counted here. */
const MONEY_AND_TOKENS = `SUM(cost_micro) AS costMicro, SUM(input_tokens) AS inputTokens, SUM(output_tokens) AS outputTokens,
  SUM(cache_read_tokens) AS cacheReadTokens`;
const ROLLUP_SUMS = `SUM(requests) AS requests, SUM(errors) AS errors, ${MONEY_AND_TOKENS}, SUM(cache_write_tokens) AS cacheWriteTokens`;
// A request row keeps 1-hour cache writes apart (they are priced apart); the rollup holds both in one figure.
const ROW_SUMS = `COUNT(*) AS requests, SUM(status >= 400) AS errors, ${MONEY_AND_TOKENS}, SUM(${CACHE_WRITES_SQL}) AS cacheWriteTokens`;

/** Every prompt token of a request row: each bucket outside the output family (contract/usage-buckets.ts). */
const PROMPT_TOKENS_SQL = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family !== 'output')
  .map((k) => USAGE_BUCKETS[k].column)
  .join(' + ');

type RawStats = Omit<StatsRow, 'group'> & { grp: string };

const SUMMED = [
  'requests',
  'errors',
  'costMicro',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
] as const;

/** Adds up rows of the same bucket and group (rollup and edges), ordered by bucket, then group. */
function merge(parts: RawStats[]): StatsRow[] {
  const byKey = new Map<string, StatsRow>();
  for (const { grp, ...p } of parts) {
    const key = `${p.start}\u0000${grp}`;
    const had = byKey.get(key);
    if (!had) {
      byKey.set(key, { ...p, group: grp === '' ? null : grp });
      continue;
    }
    for (const f of SUMMED) had[f] += p[f];
  }
  return [...byKey.values()].sort((a, b) => a.start - b.start || (a.group ?? '').localeCompare(b.group ?? ''));
}

/**
 * The WHERE clause of a filter, with its arguments in order: `matches()` in
 * contract/admin/log-filter.ts written as SQL, field for field (test/store/log-filter.test.ts holds
 * the two equal). A NULL column equals no value, as null equals no string there.
 */
export function where(
  f: LogFilter,
  extra: string[] = [],
  extraArgs: (string | number)[] = [],
): { sql: string; args: (string | number)[] } {
  const parts: string[] = [];
  const args: (string | number)[] = [];
  const eq = (column: string, value: string | number | undefined): void => {
    if (value === undefined) return;
    parts.push(`${column} = ?`);
    args.push(value);
  };
  eq('key_name', f.key);
  eq('model', f.model);
  eq('line', f.line);
  eq('inbound_protocol', f.protocol);
  eq('session', f.session);
  eq('tool', f.tool);
  eq('project', f.project);
  if (f.status === 'ok') parts.push('status < 400');
  else if (f.status === 'error') parts.push('status >= 400');
  else if (f.status !== undefined) {
    const status = Number(f.status);
    eq('status', status);
    // The index of the statuses but 200 (ledger-schema.ts), which SQLite uses when the query
    // states its condition word for word.
    if (status !== 200) parts.push(RARE_STATUS);
  }
  eq('request_id', f.requestId);
  if (f.since !== undefined) {
    parts.push('ts >= ?');
    args.push(f.since);
  }
  if (f.until !== undefined) {
    parts.push('ts < ?');
    args.push(f.until);
  }
  parts.push(...extra);
  args.push(...extraArgs);
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
}

export const MAX_LOG_PAGE = 1000;

export class LedgerReports {
  /** `beforeRollupRead` writes the hourly totals still held in memory (usage-rollup.ts UsageRollup). */
  constructor(
    private readonly db: Database.Database,
    private readonly beforeRollupRead: () => void = () => undefined,
  ) {}

  /** Newest first, `limit` (1–1000, default 50) entries older than `beforeId`; oldest first after `afterId`. */
  logs(q: LogPageQuery): LogEntry[] {
    const bounds: string[] = [];
    const args: number[] = [];
    if (q.beforeId !== undefined) {
      bounds.push('id < ?');
      args.push(q.beforeId);
    }
    if (q.afterId !== undefined) {
      bounds.push('id > ?');
      args.push(q.afterId);
    }
    const w = where(q, bounds, args);
    const limit = Math.min(Math.max(q.limit ?? 50, 1), MAX_LOG_PAGE);
    const order = q.afterId !== undefined && q.beforeId === undefined ? 'ASC' : 'DESC';
    return this.db
      .prepare<(string | number)[], RequestRecord>(`SELECT * FROM requests ${w.sql} ORDER BY id ${order} LIMIT ?`)
      .all(...w.args, limit)
      .map(toEntry);
  }

  /** Count and sums over every entry the filter matches, in one SQL pass on the same WHERE as `logs()`. */
  logSummary(f: LogFilter): LogSummary {
    const w = where(f);
    const r = this.db
      .prepare<(string | number)[], LogSummary>(
        `SELECT COUNT(*) AS requests, COALESCE(SUM(status >= 400), 0) AS errors,
           COALESCE(SUM(cost_micro), 0) AS costMicro, COALESCE(SUM(input_tokens), 0) AS inputTokens,
           COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(SUM(cache_read_tokens), 0) AS cacheReadTokens,
           COALESCE(SUM(${CACHE_WRITES_SQL}), 0) AS cacheWriteTokens
         FROM requests ${w.sql}`,
      )
      .get(...w.args);
    return r!;
  }

  /**
   * Every entry the filter matches, newest first, read a thousand at a time by id: memory stays
   * bounded however many rows match (CSV export streams from here), and between pages the
   * connection is free for the settlements of requests in flight, which an open cursor would block.
   */
  *iterateLogs(f: LogFilter): Generator<LogEntry> {
    let beforeId: number | undefined;
    for (;;) {
      const page = this.logs({ ...f, limit: MAX_LOG_PAGE, beforeId });
      yield* page;
      if (page.length < MAX_LOG_PAGE) return;
      beforeId = page[page.length - 1]!.id;
    }
  }

  /**
   * Requests, errors, cost and tokens per hour or day and per model, key or line, oldest bucket
   * first. Whole hours come from the hourly rollup (usage-rollup.ts); the partial hours at either
   * end of the range, and every hour when days start at a time zone offset that is not whole
   * hours, come from the request rows themselves, so the figures are exact either way.
   */
  stats(q: StatsQuery): StatsRow[] {
    return this.sums(q, BUCKET_MS[q.bucket], (q.tzOffsetMinutes ?? 0) * 60_000);
  }

  /**
   * The `limit` groups (model, key, line, tool, project or session) with the largest spend over a
   * range, and the range's totals: the same exact sums as `stats()`, in one bucket per group.
   */
  top(q: Omit<StatsQuery, 'bucket' | 'tzOffsetMinutes'> & { limit: number }): StatsTop {
    const rows = this.sums({ ...q, bucket: 'hour' }, 0, 0);
    const total = {
      requests: 0,
      errors: 0,
      costMicro: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    for (const r of rows) for (const f of SUMMED) total[f] += r[f];
    const sorted = rows
      .sort(
        (a, b) => b.costMicro - a.costMicro || b.requests - a.requests || (a.group ?? '').localeCompare(b.group ?? ''),
      )
      .slice(0, q.limit)
      .map(({ start: _start, ...r }) => r);
    return { total, rows: sorted, groups: rows.length };
  }

  /**
   * Sums per bucket of `size` ms (days shifted by `offset`), or over the whole range when `size` is 0.
   * Whole hours come from the hourly rollup (usage-rollup.ts); the partial hours at either end of
   * the range, and every hour when days start at an offset that is not whole hours, come from the
   * request rows themselves, so the figures are exact either way.
   */
  private sums(q: StatsQuery, size: number, offset: number): StatsRow[] {
    if (offset % HOUR_MS !== 0) return merge(this.rawRows(q, size, offset, q.since, q.until));
    const lo = Math.ceil(q.since / HOUR_MS) * HOUR_MS;
    const hi = Math.floor(q.until / HOUR_MS) * HOUR_MS;
    if (lo >= hi) return merge(this.rawRows(q, size, offset, q.since, q.until));
    this.beforeRollupRead();
    const start = size === 0 ? '0' : 'CAST((hour + @offset) / @size AS INTEGER) * @size - @offset';
    // The rollup is keyed by hour first (usage-rollup.ts): one seek to (hour, dim) for each hour the
    // ledger has in the range reads this dimension's rows alone, where a scan of the hour range
    // would read every dimension's. The hours walked are bounded by the rollup's first and last.
    // Two queries: SQLite reads a MIN or a MAX off the key's ends only when it is the query's one aggregate.
    const end = (fn: 'MIN' | 'MAX'): number | null =>
      this.db.prepare<[], { h: number | null }>(`SELECT ${fn}(hour) AS h FROM usage_hourly`).get()?.h ?? null;
    const from = Math.max(lo, end('MIN') ?? hi);
    const to = Math.min(hi, (end('MAX') ?? lo) + HOUR_MS);
    const rollup =
      from >= to
        ? []
        : this.db
            .prepare<Record<string, number | string>, RawStats>(
              `WITH RECURSIVE hours (h) AS (SELECT @from UNION ALL SELECT h + ${HOUR_MS} FROM hours WHERE h + ${HOUR_MS} < @to)
              SELECT ${start} AS start, value AS grp, ${ROLLUP_SUMS}
              FROM hours CROSS JOIN usage_hourly ON hour = h AND dim = @dim GROUP BY start, grp`,
            )
            .all({ ...(size === 0 ? {} : { offset, size }), dim: q.by, from, to });
    return merge([
      ...rollup,
      ...this.rawRows(q, size, offset, q.since, lo),
      ...this.rawRows(q, size, offset, hi, q.until),
    ]);
  }

  private rawRows(q: StatsQuery, size: number, offset: number, since: number, until: number): RawStats[] {
    if (since >= until) return [];
    const range = this.idRange(since, until);
    if (!range) return [];
    const column = ROLLUP_DIMENSIONS[q.by];
    // Whole buckets of the shifted time, shifted back, give each bucket's UTC start. Parameters
    // arrive as REAL, so the division is cast back to an integer (ts is never negative).
    const start = size === 0 ? '0' : 'CAST((ts + @offset) / @size AS INTEGER) * @size - @offset';
    const sql = `SELECT ${start} AS start, COALESCE(${column}, '') AS grp,
        ${ROW_SUMS}
      FROM requests WHERE id BETWEEN @lo AND @hi AND ts >= @since AND ts < @until
      GROUP BY start, grp`;
    return this.db
      .prepare<Record<string, number>, RawStats>(sql)
      .all({ ...(size === 0 ? {} : { offset, size }), since, until, ...range });
  }

  /**
   * What cache reads saved, per key and per day (days start `tzOffsetMinutes` east of UTC), from
   * the request rows themselves (each keeps its own saving, billing/pricing.ts): oldest day first,
   * then by key. `key` keeps one key's rows.
   */
  savings(q: { since: number; until: number; tzOffsetMinutes: number; key?: string | undefined }): SavingsRow[] {
    const range = this.idRange(q.since, q.until);
    if (!range) return [];
    const byKey = q.key === undefined ? '' : 'AND key_name = @key';
    const sql = `SELECT CAST((ts + @offset) / @size AS INTEGER) * @size - @offset AS start, key_name AS key,
        COUNT(*) AS requests, SUM(${PROMPT_TOKENS_SQL}) AS promptTokens, SUM(cache_read_tokens) AS cacheReadTokens,
        SUM(cost_micro) AS costMicro, SUM(saved_micro) AS savedMicro
      FROM requests WHERE id BETWEEN @lo AND @hi AND ts >= @since AND ts < @until ${byKey}
      GROUP BY start, key ORDER BY start, COALESCE(key, '')`;
    return this.db.prepare<Record<string, number | string>, SavingsRow>(sql).all({
      offset: q.tzOffsetMinutes * 60_000,
      size: BUCKET_MS.day,
      since: q.since,
      until: q.until,
      ...range,
      ...(q.key === undefined ? {} : { key: q.key }),
    });
  }

  /**
   * The ids of the rows in a time range, as bounds. Rows are written in time order, give or take the
   * length of a request (ts is when it started), so the range's rows sit together in the table:
   * reading them by id is a sequential scan instead of one index lookup per row, several times
   * faster on a month of a busy ledger. The ts test in the query itself keeps the answer exact.
   */
  private idRange(since: number, until: number): { lo: number; hi: number } | undefined {
    const r = this.db
      .prepare<[number, number], { lo: number | null; hi: number | null }>(
        'SELECT MIN(id) AS lo, MAX(id) AS hi FROM requests WHERE ts >= ? AND ts < ?',
      )
      .get(since, until);
    return r === undefined || r.lo === null || r.hi === null ? undefined : { lo: r.lo, hi: r.hi };
  }

  /**
   * Per line since `since`: requests, failures, the median latency and the last failure, all in
   * SQL (the median by a window over each line's latencies; the range by the ts index).
   */
  lineUsage(since: number): LineUsage[] {
    return this.db
      .prepare<[number], LineUsage>(
        `WITH r AS (
           SELECT line, status, latency_ms, id, ts, error_message,
             ROW_NUMBER() OVER (PARTITION BY line ORDER BY latency_ms) AS rn,
             COUNT(*) OVER (PARTITION BY line) AS n
           FROM requests WHERE ts >= ? AND line IS NOT NULL),
         last AS (
           SELECT line, status AS lastErrorStatus, error_message AS lastErrorMessage, ts AS lastErrorAt,
             ROW_NUMBER() OVER (PARTITION BY line ORDER BY id DESC) AS k
           FROM r WHERE status >= 400)
         SELECT r.line AS line, MAX(n) AS requests, SUM(status >= 400) AS errors,
           MAX(CASE WHEN rn = (n + 1) / 2 THEN latency_ms END) AS p50LatencyMs,
           MAX(last.lastErrorStatus) AS lastErrorStatus, MAX(last.lastErrorMessage) AS lastErrorMessage,
           MAX(last.lastErrorAt) AS lastErrorAt
         FROM r LEFT JOIN last ON last.line = r.line AND last.k = 1
         GROUP BY r.line ORDER BY r.line`,
      )
      .all(since);
  }

  /**
   * When each named key was last used (epoch ms of its newest row), for the names that have rows.
   * One lookup per name on the key_name index, whose entries for a name sit in rowid order: the
   * newest is its last entry, read without touching the key's other rows.
   */
  lastUsed(keyNames: readonly string[]): Map<string, number> {
    const newest = this.db.prepare<[string], { ts: number }>(
      'SELECT ts FROM requests INDEXED BY requests_key WHERE key_name = ? ORDER BY id DESC LIMIT 1',
    );
    const out = new Map<string, number>();
    for (const name of keyNames) {
      const r = newest.get(name);
      if (r) out.set(name, r.ts);
    }
    return out;
  }

  /** Top-ups and adjustments, newest first. */
  walletTransactions(q: { limit?: number | undefined; beforeId?: number | undefined }): WalletTransaction[] {
    const limit = Math.min(Math.max(q.limit ?? 50, 1), MAX_LOG_PAGE);
    const before = q.beforeId === undefined ? '' : 'WHERE id < ?';
    const args = q.beforeId === undefined ? [limit] : [q.beforeId, limit];
    return this.db
      .prepare<number[], WalletTxRecord>(`SELECT * FROM wallet_tx ${before} ORDER BY id DESC LIMIT ?`)
      .all(...args)
      .map((t) => ({ id: t.id, ts: t.ts, kind: t.kind, amountMicro: t.amount_micro, note: t.note }));
  }
}
