/**
 * Hourly totals per model, key, line, tool, project and agent session, kept beside the usage log,
 * written within a second of the settled requests they count (UsageRollup). A month of stats then reads a few thousand rollup rows
 * instead of grouping hundreds of thousands of requests (bench/ledger.ts measures both). The
 * request rows stay the truth: the rollup is rebuilt from them when it is missing.
 */
import type Database from 'better-sqlite3';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import { cacheWriteTokens } from '../core/usage.js';
import type { RequestRow } from './ledger.js';
import { SessionTotals, sessionWriter } from './ledger-sessions.js';

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
 * The totals being summed: by hour, then one map per dimension (in DIMENSIONS' order) keyed by the
 * row's own value. Looked up with the strings the row already holds (their hashes kept in them),
 * rather than a key made of dimension, hour and value for each of the six dimensions: building and
 * hashing six such strings was 3–4 µs of every settled request's commit (docs/performance.md).
 */
class Totals {
  private readonly hours = new Map<number, Map<string, Total>[]>();
  size = 0;

  /** Adds a settled request, one total per (dimension, hour, value). */
  add(row: RequestRow): void {
    const hour = Math.floor(row.ts / HOUR_MS) * HOUR_MS;
    let byDim = this.hours.get(hour);
    if (byDim === undefined) {
      byDim = DIMENSIONS.map(() => new Map<string, Total>());
      this.hours.set(hour, byDim);
    }
    const u = row.usage;
    const error = row.status >= 400 ? 1 : 0;
    const cacheWrite = cacheWriteTokens(u);
    for (let i = 0; i < DIMENSIONS.length; i++) {
      const dim = DIMENSIONS[i]!;
      const value = valueOf(row, dim) ?? NONE;
      const totals = byDim[i]!;
      const t = totals.get(value);
      if (t) {
        t.requests++;
        t.errors += error;
        t.costMicro += row.costMicro;
        t.input += u.inputTokens;
        t.output += u.outputTokens;
        t.cacheRead += u.cacheReadTokens;
        t.cacheWrite += cacheWrite;
      } else {
        this.size++;
        totals.set(value, {
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

  *values(): IterableIterator<Total> {
    for (const byDim of this.hours.values()) for (const totals of byDim) yield* totals.values();
  }
}

const UPSERT = `INSERT INTO usage_hourly (dim, value, hour, requests, errors, cost_micro, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (hour, dim, value) DO UPDATE SET requests = requests + excluded.requests, errors = errors + excluded.errors,
      cost_micro = cost_micro + excluded.cost_micro, input_tokens = input_tokens + excluded.input_tokens,
      output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`;

/** How long the totals of committed rows may wait in memory before they are written. */
export const ROLLUP_EVERY_MS = 1000;

/**
 * The largest request id whose row the rollup holds. Written in the transaction that writes the
 * totals; rows above it at the next open are those whose totals a crash lost (`catchUpRollup`).
 */
export const ROLLUP_MARK_SCHEMA = `
CREATE TABLE IF NOT EXISTS usage_rollup_mark (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  through_id INTEGER NOT NULL
);
`;

const MARK =
  'INSERT OR REPLACE INTO usage_rollup_mark (id, through_id) VALUES (1, (SELECT COALESCE(MAX(id), 0) FROM requests))';

/**
 * The hourly totals and the agent sessions' totals (ledger-sessions.ts) of settled requests, summed
 * in memory and written at most ROLLUP_EVERY_MS after the first of them was committed, in a
 * transaction of their own, beside the mark of the last row they hold; and at once before anything
 * reads them (`writeNow`) and at close. A settlement's commit then writes no rollup page and no
 * session page: the hourly upserts were about a tenth of the commit's CPU and a WAL page, the
 * session's upsert 38 µs a commit and five pages (its row and four indexes that hold `last_ts`),
 * most of a one-row commit's cost at low load (docs/performance.md, "The hourly totals, written
 * late", "The pass-through's commit and its 50 ms latency"). The request rows stay the truth: a
 * crash loses only totals, which the next open rebuilds from the rows above the mark
 * (`catchUpRollup`).
 */
export class UsageRollup {
  private totals = new Totals();
  private sessions = new SessionTotals();
  private timer: NodeJS.Timeout | undefined;
  private readonly write: (totals: Iterable<Total>, sessions: SessionTotals) => void;

  constructor(db: Database.Database) {
    const upsert = db.prepare<[string, string, number, number, number, number, number, number, number, number]>(UPSERT);
    const mark = db.prepare(MARK);
    const writeSessions = sessionWriter(db);
    this.write = db.transaction((totals: Iterable<Total>, sessions: SessionTotals) => {
      writeSessions(sessions);
      for (const t of totals)
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
      mark.run();
    });
  }

  /** Rows just committed: their totals are written within ROLLUP_EVERY_MS. */
  add(rows: readonly RequestRow[]): void {
    if (rows.length === 0) return;
    for (const row of rows) {
      this.totals.add(row);
      this.sessions.add(row);
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writeNow();
    }, ROLLUP_EVERY_MS);
    this.timer.unref();
  }

  /**
   * Writes the totals held. Should that fail (a full disk), they are kept for the next try; a crash
   * before then is made good at the next open from the rows themselves.
   */
  writeNow(): void {
    if (this.totals.size === 0 && this.sessions.size === 0) return;
    try {
      this.write(this.totals.values(), this.sessions);
      this.totals = new Totals();
      this.sessions = new SessionTotals();
    } catch {
      if (this.timer === undefined) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.writeNow();
        }, ROLLUP_EVERY_MS);
        this.timer.unref();
      }
    }
  }

  /** At close: the timer's work is done by one last `writeNow`. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Makes good the totals a crash lost: the rows above the mark were committed but their totals were
 * still in memory. Each hour those rows fall in is summed again from its request rows, every
 * dimension (an exact figure whatever part of the hour the rollup held, and whoever wrote it: an
 * older build that kept the rollup in each commit leaves rows above the mark too). Then the mark
 * moves to the last row. A ledger without a mark (new, or from a build before it) had its totals
 * written with each commit: its mark starts at its last row.
 */
export function catchUpRollup(db: Database.Database): void {
  const mark = db.prepare<[], { through_id: number }>('SELECT through_id FROM usage_rollup_mark WHERE id = 1').get();
  const last = db.prepare<[], { m: number | null }>('SELECT MAX(id) AS m FROM requests').get()?.m ?? 0;
  if (mark && last <= mark.through_id) return;
  db.transaction(() => {
    if (mark) {
      const hours = db
        .prepare<[number], { h: number }>(
          `SELECT DISTINCT (ts / ${HOUR_MS}) * ${HOUR_MS} AS h FROM requests WHERE id > ?`,
        )
        .all(mark.through_id)
        .map((r) => r.h);
      const drop = db.prepare<[number]>('DELETE FROM usage_hourly WHERE hour = ?');
      for (const h of hours) {
        drop.run(h);
        for (const [dim, column] of Object.entries(ROLLUP_DIMENSIONS))
          db.prepare(
            `INSERT INTO usage_hourly (${COLUMNS}) SELECT ?, COALESCE(${column}, ''), ${h},
              COUNT(*), SUM(status >= 400), SUM(cost_micro), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(${CACHE_WRITES_SQL})
            FROM requests WHERE ts >= ${h} AND ts < ${h + HOUR_MS} GROUP BY 2`,
          ).run(dim);
      }
      catchUpSessions(db, mark.through_id);
    }
    db.prepare(MARK).run();
  })();
}

/** A request row's prompt tokens (core/usage.ts promptTokens), as SQL over its columns. */
const PROMPT_SQL = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family !== 'output')
  .map((k) => USAGE_BUCKETS[k].column)
  .join(' + ');

const SESSION_SUMS = `MIN(ts), MAX(ts), COUNT(*), SUM(status >= 400), SUM(${PROMPT_SQL}), SUM(cache_read_tokens),
  SUM(output_tokens), SUM(cost_micro), SUM(saved_micro)`;

const SESSION_COLUMNS = `id, key_id, key_name, tool, project, first_ts, last_ts, requests, errors, prompt_tokens,
  cache_read_tokens, output_tokens, cost_micro, saved_micro`;

/**
 * The session totals of the rows above the mark, which a crash may have lost. Each such session is
 * counted again from all its rows (exact whoever wrote them: an older build writes the totals in each
 * commit), its key, tool and project kept; a session whose first rows retention has pruned (its total
 * starts before its oldest row left) cannot be, and gets the rows above the mark added instead.
 */
function catchUpSessions(db: Database.Database, markId: number): void {
  const ids = db
    .prepare<[number], { id: string }>(
      'SELECT DISTINCT session AS id FROM requests WHERE id > ? AND session IS NOT NULL',
    )
    .all(markId)
    .map((r) => r.id);
  if (ids.length === 0) return;
  const stored = db.prepare<[string], { first_ts: number }>('SELECT first_ts FROM sessions WHERE id = ?');
  const oldest = db.prepare<[string], { ts: number }>('SELECT MIN(ts) AS ts FROM requests WHERE session = ?');
  // A new session takes its key, tool and project from its first row, as the upserts do.
  const first = `(SELECT key_id, key_name, COALESCE(tool, 'unknown') AS tool, project FROM requests WHERE session = @id
    ORDER BY ts, id LIMIT 1) f`;
  const recount = db.prepare<[{ id: string }]>(
    `INSERT INTO sessions (${SESSION_COLUMNS}) SELECT @id, f.key_id, f.key_name, f.tool, f.project, s.*
      FROM ${first}, (SELECT ${SESSION_SUMS} FROM requests WHERE session = @id) s WHERE true
    ON CONFLICT (id) DO UPDATE SET first_ts = excluded.first_ts, last_ts = excluded.last_ts, requests = excluded.requests,
      errors = excluded.errors, prompt_tokens = excluded.prompt_tokens, cache_read_tokens = excluded.cache_read_tokens,
      output_tokens = excluded.output_tokens, cost_micro = excluded.cost_micro, saved_micro = excluded.saved_micro`,
  );
  const add = db.prepare<[{ id: string; mark: number }]>(
    `INSERT INTO sessions (${SESSION_COLUMNS}) SELECT @id, f.key_id, f.key_name, f.tool, f.project, s.*
      FROM ${first}, (SELECT ${SESSION_SUMS} FROM requests WHERE session = @id AND id > @mark) s WHERE true
    ON CONFLICT (id) DO UPDATE SET last_ts = MAX(last_ts, excluded.last_ts), first_ts = MIN(first_ts, excluded.first_ts),
      requests = requests + excluded.requests, errors = errors + excluded.errors, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
      cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, output_tokens = output_tokens + excluded.output_tokens,
      cost_micro = cost_micro + excluded.cost_micro, saved_micro = saved_micro + excluded.saved_micro`,
  );
  for (const id of ids) {
    const had = stored.get(id);
    if (had && had.first_ts < oldest.get(id)!.ts) add.run({ id, mark: markId });
    else recount.run({ id });
  }
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
