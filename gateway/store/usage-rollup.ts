/**
 * Hourly totals per model, per key and per line, kept beside the usage log and written in the same
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

export const ROLLUP_DIMENSIONS = { model: 'model', key: 'key_name', line: 'line' } as const;
export type RollupDimension = keyof typeof ROLLUP_DIMENSIONS;

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
  PRIMARY KEY (dim, hour, value)
) WITHOUT ROWID;
`;

/** Requests refused before a key, model or line was known are counted under ''. */
const NONE = '';

/** Adds one settled request to its three hourly totals; call inside the settlement transaction. */
export function rollupWriter(db: Database.Database): (row: RequestRow) => void {
  const upsert =
    db.prepare(`INSERT INTO usage_hourly (dim, value, hour, requests, errors, cost_micro, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (dim, hour, value) DO UPDATE SET requests = requests + 1, errors = errors + excluded.errors,
      cost_micro = cost_micro + excluded.cost_micro, input_tokens = input_tokens + excluded.input_tokens,
      output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`);
  return (row) => {
    const hour = Math.floor(row.ts / HOUR_MS) * HOUR_MS;
    const u = row.usage;
    const error = row.status >= 400 ? 1 : 0;
    for (const [dim, value] of [
      ['model', row.model],
      ['key', row.keyName],
      ['line', row.line],
    ] as const) {
      upsert.run(
        dim,
        value ?? NONE,
        hour,
        error,
        row.costMicro,
        u.inputTokens,
        u.outputTokens,
        u.cacheReadTokens,
        cacheWriteTokens(u),
      );
    }
  };
}

/** Builds the rollup from the request rows when it is empty (a ledger from before it existed). */
export function backfillRollup(db: Database.Database): void {
  const has = db.prepare('SELECT 1 FROM usage_hourly LIMIT 1').get();
  const rows = db.prepare('SELECT 1 FROM requests LIMIT 1').get();
  if (has || !rows) return;
  db.transaction(() => {
    for (const [dim, column] of Object.entries(ROLLUP_DIMENSIONS)) {
      db.prepare(
        `INSERT INTO usage_hourly SELECT ?, COALESCE(${column}, ''), (ts / ${HOUR_MS}) * ${HOUR_MS} AS h,
          COUNT(*), SUM(status >= 400), SUM(cost_micro), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(${CACHE_WRITES_SQL})
        FROM requests GROUP BY 2, h`,
      ).run(dim);
    }
  })();
}
