/**
 * Retention of the usage log. Rows older than the cut-off lose their detail (model, tokens,
 * timing, errors), but never their money: before they are deleted, their costs and counts are
 * added to `pruned_daily`, one row per UTC day and key, in the same transaction. So the ledger
 * invariant (docs/admin-api.md, "Wallet") still sums every request ever billed, and each key's
 * usage still equals the costs logged under it. The hourly totals the stats read
 * (usage-rollup.ts) are kept whole: charts over pruned days stay right.
 */
import type Database from 'better-sqlite3';

const DAY_MS = 86_400_000;

export const PRUNE_SCHEMA = `
CREATE TABLE IF NOT EXISTS pruned_daily (
  day INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  requests INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL,
  PRIMARY KEY (day, key_id)
) WITHOUT ROWID;
`;

/** Requests logged before a key was known are summed under ''. */
const NO_KEY = '';

export interface PruneResult {
  rows: number;
  costMicro: number;
}

/** Folds every request row older than `before` (epoch ms) into the daily totals and deletes it. */
export function pruneBefore(db: Database.Database, before: number): PruneResult {
  return db.transaction((): PruneResult => {
    const sum = db
      .prepare<[number], { n: number; c: number }>(
        'SELECT COUNT(*) AS n, COALESCE(SUM(cost_micro), 0) AS c FROM requests WHERE ts < ?',
      )
      .get(before);
    if (!sum || sum.n === 0) return { rows: 0, costMicro: 0 };
    db.prepare(
      `INSERT INTO pruned_daily (day, key_id, requests, cost_micro)
        SELECT (ts / ${DAY_MS}) * ${DAY_MS} AS d, COALESCE(key_id, '${NO_KEY}') AS k, COUNT(*), SUM(cost_micro) FROM requests WHERE ts < ? GROUP BY d, k
        ON CONFLICT (day, key_id) DO UPDATE SET requests = requests + excluded.requests, cost_micro = cost_micro + excluded.cost_micro`,
    ).run(before);
    db.prepare('DELETE FROM requests WHERE ts < ?').run(before);
    return { rows: sum.n, costMicro: sum.c };
  })();
}

/** Σ cost of the pruned rows, in all and per key. */
export function prunedCosts(db: Database.Database): { totalMicro: number; byKey: Map<string, number> } {
  const byKey = new Map<string, number>();
  let totalMicro = 0;
  const sums = db.prepare<[], { k: string; c: number }>(
    'SELECT key_id AS k, SUM(cost_micro) AS c FROM pruned_daily GROUP BY key_id',
  );
  for (const r of sums.all()) {
    totalMicro += r.c;
    if (r.k !== NO_KEY) byKey.set(r.k, r.c);
  }
  return { totalMicro, byKey };
}
