/**
 * Hourly totals per model, key, line, tool, project and agent session, kept beside the usage log and written in the same
 * transaction as each settled request. A month of stats then reads a few thousand rollup rows
 * instead of grouping hundreds of thousands of requests (bench/ledger.ts measures both). The
 * request rows stay the truth: the rollup is rebuilt from them when it is missing.
 */
import type Database from 'better-sqlite3';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import { cacheWriteTokens } from '../core/usage.js';
import type { RequestRow } from './ledger.js';

export const HOUR_MS = 3_600_000;

/**
 * The stats keep one cache-write figure: a request row's cache writes of every lifetime (the
 * cache-write family of contract/usage-buckets.ts), as SQL over its columns.
 */
export const CACHE_WRITES_SQL = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family === 'cacheWrite')
  .map((k) => USAGE_BUCKETS[k].column)
  .join(' + ');

/**
 * Each dimension the charts group by, and its request column. Tools and projects are few; a session
 * spans a few hours, so its rows number its active hours, far fewer than its requests.
 */
export const ROLLUP_DIMENSIONS = {
  model: 'model',
  key: 'key_name',
  line: 'line',
  tool: 'tool',
  project: 'project',
  session: 'session',
} as const;
export type RollupDimension = keyof typeof ROLLUP_DIMENSIONS;

/**
 * Keyed by hour first: a commit's upserts all land in the current hour, so its six dimensions share
 * the table's last leaf page or two instead of dirtying a page per dimension (each a WAL page
 * written at the commit, in front of the answer: docs/performance.md, "The ledger's commit,
 * smaller"). A range of one dimension is a range of the key with the other dimensions skipped.
 */
export const ROLLUP_SCHEMA = `
CREATE TABLE IF NOT EXISTS usage_hourly (
  dim TEXT NOT NULL,
  value TEXT NOT NULL,
  hour INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  PRIMARY KEY (hour, dim, value)
) WITHOUT ROWID;
-- The key older builds name in their upsert (ON CONFLICT (dim, hour, value)), so that a ledger this
-- build rekeyed still opens in them. Its entries change only when a row is added (an hour's first
-- request of a value), not when a total grows, so a commit seldom writes a page of it.
CREATE UNIQUE INDEX IF NOT EXISTS usage_hourly_by_dim ON usage_hourly (dim, hour, value);
`;

const COLUMNS = `dim, value, hour, requests, errors, cost_micro, input_tokens, output_tokens, cache_read_tokens,
  cache_write_tokens`;

/** The key older builds gave the rollup, as their CREATE TABLE spelled it. */
const DIM_FIRST_KEY = 'PRIMARY KEY (dim, hour, value)';

/**
 * Rekeys a rollup made by an older build, keyed (dim, hour, value), by hour first: the rows are
 * copied as they are into a table made by ROLLUP_SCHEMA, in one transaction, so a crash leaves the
 * old table or the new one, never neither.
 */
export function rekeyRollup(db: Database.Database): void {
  const found = db
    .prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'usage_hourly'")
    .get();
  if (!found?.sql.includes(DIM_FIRST_KEY)) return;
  db.transaction(() => {
    db.exec('ALTER TABLE usage_hourly RENAME TO usage_hourly_old_key');
    db.exec(ROLLUP_SCHEMA);
    db.exec(`INSERT INTO usage_hourly (${COLUMNS}) SELECT ${COLUMNS} FROM usage_hourly_old_key`);
    db.exec('DROP TABLE usage_hourly_old_key');
  })();
}

/** Requests refused before a key, model or line was known are counted under ''. */
const NONE = '';

/** One hourly total being summed over a batch of rows. */
interface Total {
  dim: RollupDimension;
  value: string;
  hour: number;
  requests: number;
  errors: number;
  costMicro: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * Adds settled requests to their hourly totals; call inside the settlement's transaction. The rows
 * of a batch are summed first, so each (dimension, hour, value) is written once however many rows
 * share it: a group commit of sixteen requests of one key, model, line, tool, project and session is
 * six upserts.
 */
export function rollupWriter(db: Database.Database): (rows: readonly RequestRow[]) => void {
  const upsert = db.prepare<[string, string, number, number, number, number, number, number, number, number]>(
    `INSERT INTO usage_hourly (dim, value, hour, requests, errors, cost_micro, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (hour, dim, value) DO UPDATE SET requests = requests + excluded.requests, errors = errors + excluded.errors,
      cost_micro = cost_micro + excluded.cost_micro, input_tokens = input_tokens + excluded.input_tokens,
      output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`,
  );
  return (rows) => {
    const totals = new Map<string, Total>();
    for (const row of rows) {
      const hour = Math.floor(row.ts / HOUR_MS) * HOUR_MS;
      const u = row.usage;
      const error = row.status >= 400 ? 1 : 0;
      const cacheWrite = cacheWriteTokens(u);
      for (const dim of DIMENSIONS) {
        const value = valueOf(row, dim) ?? NONE;
        // The dimension and the hour hold no NUL: the value is what follows the second, whatever it holds.
        const id = `${dim}\0${hour}\0${value}`;
        const t = totals.get(id);
        if (t) {
          t.requests++;
          t.errors += error;
          t.costMicro += row.costMicro;
          t.input += u.inputTokens;
          t.output += u.outputTokens;
          t.cacheRead += u.cacheReadTokens;
          t.cacheWrite += cacheWrite;
        } else {
          totals.set(id, {
            dim,
            value,
            hour,
            requests: 1,
            errors: error,
            costMicro: row.costMicro,
            input: u.inputTokens,
            output: u.outputTokens,
            cacheRead: u.cacheReadTokens,
            cacheWrite,
          });
        }
      }
    }
    for (const t of totals.values())
      upsert.run(
        t.dim,
        t.value,
        t.hour,
        t.requests,
        t.errors,
        t.costMicro,
        t.input,
        t.output,
        t.cacheRead,
        t.cacheWrite,
      );
  };
}

const DIMENSIONS = Object.keys(ROLLUP_DIMENSIONS) as RollupDimension[];

function valueOf(row: RequestRow, dim: RollupDimension): string | null {
  switch (dim) {
    case 'model':
      return row.model;
    case 'key':
      return row.keyName;
    case 'line':
      return row.line;
    case 'tool':
      return row.tool;
    case 'project':
      return row.project;
    case 'session':
      return row.session;
  }
}

/**
 * Builds each dimension of the rollup from the request rows when it has none: a ledger from before
 * the rollup existed, or from before that dimension did. Every settled row is counted in every
 * dimension (under '' when it has no value), so a dimension with no rows at all was never written.
 */
export function backfillRollup(db: Database.Database): void {
  const rows = db.prepare('SELECT 1 FROM requests LIMIT 1').get();
  if (!rows) return;
  const has = db.prepare<[string]>('SELECT 1 FROM usage_hourly WHERE dim = ? LIMIT 1');
  const missing = Object.entries(ROLLUP_DIMENSIONS).filter(([dim]) => !has.get(dim));
  if (missing.length === 0) return;
  db.transaction(() => {
    for (const [dim, column] of missing) {
      db.prepare(
        `INSERT INTO usage_hourly (${COLUMNS}) SELECT ?, COALESCE(${column}, ''), (ts / ${HOUR_MS}) * ${HOUR_MS} AS h,
          COUNT(*), SUM(status >= 400), SUM(cost_micro), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(${CACHE_WRITES_SQL})
        FROM requests GROUP BY 2, h`,
      ).run(dim);
    }
  })();
}
