import type Database from 'better-sqlite3';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import type { PendingRecord, RequestRecord, WalletRecord } from './ledger-records.js';

/** What `tollgate doctor` finds wrong with the money in a ledger, beyond the invariant itself. */
export interface LedgerProblems {
  /** The stored balance, when it is not a whole non-negative number of micro-USD. */
  badBalance: number | null;
  /** Rows whose cost or token figures are not whole non-negative numbers (a few request ids, and how many). */
  badRows: { count: number; requestIds: string[] };
  /** Keys that spent more than their quota plus their largest single charge (one bounded reservation). */
  overQuota: { keyId: string; usedMicro: number; quotaMicro: number; largestMicro: number }[];
  /** Requests admitted by a gateway that stopped before settling them (a few request ids, and how many). */
  unsettled: { count: number; requestIds: string[] };
}

const MONEY_AND_TOKENS = ['cost_micro', 'uncharged_micro', ...BUCKET_KEYS.map((k) => USAGE_BUCKETS[k].column)];

const EXAMPLES = 5;

/**
 * Reads what the CHECK constraints would refuse today in rows written before they existed, keys
 * over their quota, and pending rows that no request of this process holds.
 * `quotas`: key id → quota, for the keys that have one. `inFlight`: request ids this process has
 * admitted and not yet settled.
 */
export function ledgerProblems(
  db: Database.Database,
  quotas: ReadonlyMap<string, number>,
  inFlight: ReadonlySet<string>,
): LedgerProblems {
  // Read as SQLite stored it: a ledger from before the checks may hold a REAL here.
  const balance = db.prepare<[], WalletRecord>('SELECT * FROM wallet WHERE id = 1').get()?.balance_micro ?? 0;
  const badBalance = Number.isSafeInteger(balance) && balance >= 0 ? null : balance;

  const bad = MONEY_AND_TOKENS.map((c) => `typeof(${c}) != 'integer' OR ${c} < 0`).join(' OR ');
  const badCount = db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM requests WHERE ${bad}`).get()?.n ?? 0;
  const badIds = db
    .prepare<[], Pick<RequestRecord, 'request_id'>>(
      `SELECT request_id FROM requests WHERE ${bad} ORDER BY id DESC LIMIT ${EXAMPLES}`,
    )
    .all()
    .map((r) => r.request_id);

  const overQuota: LedgerProblems['overQuota'] = [];
  const usage = db.prepare<[string], { used: number; largest: number }>(
    'SELECT u.used_micro AS used, (SELECT COALESCE(MAX(cost_micro), 0) FROM requests r WHERE r.key_id = u.key_id) AS largest FROM key_usage u WHERE u.key_id = ?',
  );
  for (const [keyId, quotaMicro] of quotas) {
    const u = usage.get(keyId);
    if (u && u.used - u.largest > quotaMicro)
      overQuota.push({ keyId, usedMicro: u.used, quotaMicro, largestMicro: u.largest });
  }

  const pending = db
    .prepare<[], Pick<PendingRecord, 'request_id'>>('SELECT request_id FROM pending ORDER BY ts')
    .all()
    .map((r) => r.request_id)
    .filter((id) => !inFlight.has(id));
  return {
    badBalance,
    badRows: { count: badCount, requestIds: badIds },
    overQuota,
    unsettled: { count: pending.length, requestIds: pending.slice(0, EXAMPLES) },
  };
}
