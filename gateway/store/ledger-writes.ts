/**
 * The ledger's group commit: what the ledger queues in one event-loop turn (the pending rows of
 * admitted requests that are due, settled rows) is written in one SQLite transaction, and one entry that cannot
 * be written fails alone. Every entry is checked before it joins a batch (`rowProblem`,
 * `pendingProblem`); should SQLite still refuse one, the batch is written again with each entry in
 * a savepoint of its own, so the others are committed as if it had not been there and it gets its
 * own error.
 */
import type Database from 'better-sqlite3';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import { USAGE_KEYS } from '../core/usage.js';
import type { PendingRow, RequestRow } from './ledger.js';
import type { PendingOutcome } from './ledger-pending.js';

export type Queued =
  | { kind: 'open'; pending: PendingRow }
  | {
      kind: 'settle';
      row: RequestRow;
      /** Its pending row: deleted with the settlement when it was written (ledger-pending.ts). */
      pending: PendingOutcome;
      resolve: () => void;
      reject: (err: unknown) => void;
    };

/** SQLite's result codes that say the data dir's storage failed, not that one row was wrong. */
const STORAGE_CODES = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|NOMEM|CORRUPT|NOTADB|PROTOCOL)/;

/**
 * A ledger entry that was not written: `storage` when the data dir could not be written (a full
 * disk, a read-only one), else the row itself was refused (by the checks before the batch, or by
 * SQLite for this row alone).
 */
export class LedgerWriteError extends Error {
  constructor(
    readonly requestId: string,
    readonly reason: string,
    readonly storage: boolean,
  ) {
    super(`ledger row ${requestId} ${storage ? 'could not be written' : 'refused'}: ${reason}`);
    this.name = 'LedgerWriteError';
  }

  static of(requestId: string, err: unknown): LedgerWriteError {
    if (err instanceof LedgerWriteError) return err;
    const code = (err as { code?: unknown }).code;
    const storage = typeof code === 'string' && STORAGE_CODES.test(code);
    return new LedgerWriteError(requestId, (err as Error).message ?? String(err), storage);
  }
}

type Problem = string | undefined;

const wholeOrNull = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isSafeInteger(v));
const whole = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const kind = (v: unknown): string => (v === null ? 'null' : typeof v);

/** The first of `fields` of `record` that is not text (or null, where null is allowed). */
function notText(record: object, fields: readonly string[], nullable: boolean): Problem {
  for (const f of fields) {
    const v: unknown = (record as Record<string, unknown>)[f];
    if (typeof v === 'string' || (nullable && v === null)) continue;
    return `${f} is ${kind(v)}, not text`;
  }
  return undefined;
}

const ROW_TEXT = ['requestId', 'inboundProtocol'] as const;
const ROW_TEXT_OR_NULL = [
  'keyId',
  'keyName',
  'model',
  'servedModel',
  'upstreamModel',
  'line',
  'upstreamProtocol',
  'errorCode',
  'errorMessage',
  'notes',
  'session',
  'agent',
  'tool',
  'project',
] as const;

/**
 * Why a row may not be written, or undefined: a value SQLite would store as a REAL or refuse to
 * bind (a money or token figure that is not a whole non-negative number, a text field that is not
 * text), or a cost the balance (`balanceMicro`, what the wallet holds before this row) cannot pay.
 */
export function rowProblem(row: RequestRow, balanceMicro: number): Problem {
  if (!whole(row.costMicro)) return `cost ${row.costMicro} is not a whole non-negative number of micro-USD`;
  if (!whole(row.unchargedMicro))
    return `uncharged ${row.unchargedMicro} is not a whole non-negative number of micro-USD`;
  if (!whole(row.savedMicro)) return `saved ${row.savedMicro} is not a whole non-negative number of micro-USD`;
  if (typeof row.usage !== 'object' || row.usage === null) return `usage is ${kind(row.usage)}`;
  for (const k of USAGE_KEYS)
    if (!whole(row.usage[k])) return `${k} ${row.usage[k]} is not a whole non-negative number`;
  if (!wholeOrNull(row.ttfbMs) || !whole(row.latencyMs) || !whole(row.attempts) || !whole(row.status) || !whole(row.ts))
    return 'a time, status or count is not a whole number';
  const text = notText(row, ROW_TEXT, false) ?? notText(row, ROW_TEXT_OR_NULL, true);
  if (text) return text;
  if (typeof row.stream !== 'boolean' || typeof row.usageEstimated !== 'boolean') return 'a flag is not true or false';
  if (row.billedAt !== null) {
    const b = row.billedAt as unknown as { prices?: unknown; multiplierPpm?: unknown } | null;
    if (typeof b !== 'object' || b === null || typeof b.prices !== 'object' || b.prices === null)
      return 'billedAt has no prices';
    if (!whole(b.multiplierPpm)) return `the multiplier ${String(b.multiplierPpm)} is not a whole number`;
    for (const [k, v] of Object.entries(b.prices)) if (!whole(v)) return `the price ${k} is not a whole number`;
  }
  if (row.costMicro > balanceMicro) return `cost ${row.costMicro} is more than the balance of ${balanceMicro}`;
  return undefined;
}

const PENDING_TEXT_OR_NULL = ['keyId', 'keyName', 'model'] as const;

/** Why a pending row may not be written, or undefined. */
export function pendingProblem(p: PendingRow): Problem {
  return (
    notText(p, ['requestId', 'inboundProtocol'], false) ??
    notText(p, PENDING_TEXT_OR_NULL, true) ??
    (!whole(p.ts) || !whole(p.heldMicro) ? 'a time or amount is not a whole number' : undefined) ??
    (typeof p.stream !== 'boolean' ? 'stream is not true or false' : undefined)
  );
}

/** The INSERT of one `requests` row: each usage bucket's column (contract/usage-buckets.ts) takes the parameter named by its key. */
const INSERT_ROW = `INSERT INTO requests (request_id, ts, key_id, key_name, model, upstream_model, line,
  inbound_protocol, upstream_protocol, stream, status, error_code, error_message, usage_estimated, cost_micro,
  uncharged_micro, latency_ms, ttfb_ms, notes, served_model, attempts, prices_json, multiplier_ppm,
  session, agent, tool, project, saved_micro,
  ${BUCKET_KEYS.map((k) => USAGE_BUCKETS[k].column).join(', ')})
  VALUES (${Array.from({ length: 28 + BUCKET_KEYS.length }, () => '?').join(', ')})`;

/** A row as the INSERT statement's parameters, in its column order. */
function rowParams(row: RequestRow): unknown[] {
  const params: unknown[] = [
    row.requestId,
    row.ts,
    row.keyId,
    row.keyName,
    row.model,
    row.upstreamModel,
    row.line,
    row.inboundProtocol,
    row.upstreamProtocol,
    row.stream ? 1 : 0,
    row.status,
    row.errorCode,
    row.errorMessage,
    row.usageEstimated ? 1 : 0,
    row.costMicro,
    row.unchargedMicro,
    row.latencyMs,
    row.ttfbMs,
    row.notes,
    row.servedModel,
    row.attempts,
    // The tier, when one applied, rides in the same JSON under `tier` (ledger-rows.ts reads it back).
    row.billedAt
      ? JSON.stringify(row.billedAt.tier ? { ...row.billedAt.prices, tier: row.billedAt.tier } : row.billedAt.prices)
      : null,
    row.billedAt?.multiplierPpm ?? null,
    row.session,
    row.agent,
    row.tool,
    row.project,
    row.savedMicro,
  ];
  for (const k of BUCKET_KEYS) params.push(row.usage[k]);
  return params;
}

/**
 * The statements of the group commit, prepared once. `commit` writes a batch and returns the
 * entries that failed alone with their errors (none, usually); it throws when the transaction
 * itself could not be committed, and then nothing of the batch was written.
 */
export class GroupCommit {
  private readonly insertRow: Database.Statement<unknown[]>;
  private readonly debit: Database.Statement<[number]>;
  private readonly addKeyUsage: Database.Statement<[string, number, number]>;
  private readonly openPending: Database.Statement<unknown[]>;
  private readonly closePending: Database.Statement<[string]>;
  private readonly whole: (batch: Queued[]) => void;
  private readonly interrupted: (rows: readonly RequestRow[]) => void;
  private readonly isolated: (batch: Queued[]) => Map<Queued, LedgerWriteError>;

  constructor(db: Database.Database) {
    this.insertRow = db.prepare(INSERT_ROW);
    this.debit = db.prepare('UPDATE wallet SET balance_micro = balance_micro - ? WHERE id = 1');
    this.addKeyUsage = db.prepare(`INSERT INTO key_usage (key_id, used_micro, requests) VALUES (?, ?, ?)
      ON CONFLICT (key_id) DO UPDATE SET used_micro = used_micro + excluded.used_micro, requests = requests + excluded.requests`);
    this.openPending =
      db.prepare(`INSERT OR REPLACE INTO pending (request_id, ts, key_id, key_name, model, inbound_protocol, stream, held_micro)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.closePending = db.prepare('DELETE FROM pending WHERE request_id = ?');
    this.whole = db.transaction((batch: Queued[]) => this.writeWhole(batch));
    this.interrupted = db.transaction((rows: readonly RequestRow[]) => {
      for (const row of rows) {
        this.insertRow.run(...rowParams(row));
        this.closePending.run(row.requestId);
      }
    });
    // Inside a transaction, better-sqlite3 runs a nested transaction function as a savepoint.
    const entry = db.transaction((item: Queued) => this.writeEntry(item));
    this.isolated = db.transaction((batch: Queued[]) => {
      const failed = new Map<Queued, LedgerWriteError>();
      for (const item of batch) {
        try {
          entry(item);
        } catch (err) {
          failed.set(
            item,
            LedgerWriteError.of(item.kind === 'open' ? item.pending.requestId : item.row.requestId, err),
          );
        }
      }
      return failed;
    });
  }

  commit(batch: Queued[]): Map<Queued, LedgerWriteError> {
    try {
      this.whole(batch);
      return new Map();
    } catch {
      // One entry (or the storage) failed and nothing was written: each entry alone this time.
      return this.isolated(batch);
    }
  }

  /** Closes the pending rows a stopped gateway left with their `interrupted` rows (which charge nothing), in one transaction. */
  closeInterrupted(rows: readonly RequestRow[]): void {
    this.interrupted(rows);
  }

  /**
   * The whole batch in one go: the wallet debited once and each key's usage updated once, whatever
   * the number of rows (the hourly and the session totals are written apart: usage-rollup.ts). Only
   * a request whose pending row was written deletes one.
   */
  private writeWhole(batch: Queued[]): void {
    let debit = 0;
    const keys = new Map<string, { micro: number; requests: number }>();
    for (const item of batch) {
      if (item.kind === 'open') {
        this.openPending.run(...pendingParams(item.pending));
        continue;
      }
      const row = item.row;
      this.insertRow.run(...rowParams(row));
      if (item.pending.closes) this.closePending.run(row.requestId);
      debit += row.costMicro;
      if (row.keyId !== null) {
        const k = keys.get(row.keyId);
        if (k) {
          k.micro += row.costMicro;
          k.requests++;
        } else keys.set(row.keyId, { micro: row.costMicro, requests: 1 });
      }
    }
    for (const [keyId, k] of keys) this.addKeyUsage.run(keyId, k.micro, k.requests);
    if (debit > 0) this.debit.run(debit);
  }

  /** One entry with everything it changes, so that its savepoint holds all of it. */
  private writeEntry(item: Queued): void {
    if (item.kind === 'open') {
      this.openPending.run(...pendingParams(item.pending));
      return;
    }
    const row = item.row;
    this.insertRow.run(...rowParams(row));
    if (item.pending.closes) this.closePending.run(row.requestId);
    if (row.keyId !== null) this.addKeyUsage.run(row.keyId, row.costMicro, 1);
    if (row.costMicro > 0) this.debit.run(row.costMicro);
  }
}

function pendingParams(p: PendingRow): unknown[] {
  return [p.requestId, p.ts, p.keyId, p.keyName, p.model, p.inboundProtocol, p.stream ? 1 : 0, p.heldMicro];
}
