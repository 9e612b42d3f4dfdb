import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { BUCKET_KEYS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import { openSqlite } from './sqlite.js';
import { emptyUsage, USAGE_KEYS, type Usage } from '../core/usage.js';
import { ledgerProblems, type LedgerProblems } from './ledger-checks.js';
import type { KeyUsageRecord, PendingRecord, WalletRecord, WalletTxRecord } from './ledger-records.js';
import { migrate, SCHEMA } from './ledger-schema.js';
import type { CostBreakdown, PriceSnapshot } from '../core/cost-breakdown.js';
import { LedgerReports, type LogPageQuery } from './ledger-reports.js';
import { PRUNE_SCHEMA, pruneBefore, prunedCosts, type PruneResult } from './ledger-prune.js';
import { backfillRollup, ROLLUP_SCHEMA, rollupWriter } from './usage-rollup.js';
import { LedgerSessions, SESSIONS_SCHEMA, sessionWriter } from './ledger-sessions.js';

/** One row of the usage log: one per request, success or failure. */
export interface RequestRow {
  requestId: string;
  ts: number;
  keyId: string | null;
  keyName: string | null;
  /** The model id the client asked for. */
  model: string | null;
  /** The catalogue model that served it (differs from `model` when an alias applied). */
  servedModel: string | null;
  upstreamModel: string | null;
  /** The line of the last attempt. */
  line: string | null;
  /** Upstream attempts (more than 1 after a failover; 0 when refused before forwarding). */
  attempts: number;
  inboundProtocol: string;
  upstreamProtocol: string | null;
  stream: boolean;
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  usage: Usage;
  /** True when the upstream reported no usable usage and the figures were counted by Tollgate. */
  usageEstimated: boolean;
  /** What the wallet and the key were charged: never more than the wallet and the key's quota could pay (billing/billing.ts). */
  costMicro: number;
  /** Cost at the catalogue's prices beyond what could be paid, not charged; usually 0. */
  unchargedMicro: number;
  latencyMs: number;
  ttfbMs: number | null;
  /** What translation dropped or changed, "; "-separated; null when nothing. */
  notes: string | null;
  /**
   * The unit prices and multiplier the row was billed at, kept with it so a later price change
   * never changes what it says; null when no model was admitted (and for rows older than the snapshot).
   */
  billedAt: PriceSnapshot | null;
  /** The agent session (docs/sessions.md); null for rows refused before a key was known, and older rows. */
  session: string | null;
  /** The sub-agent within the session; null for the main agent. */
  agent: string | null;
  /** The client tool (contract/sessions.ts TOOLS); null as `session` is. */
  tool: string | null;
  project: string | null;
  /** What the cache reads saved: their tokens at the input price, less what they cost (× the multiplier). */
  savedMicro: number;
}

export interface LogEntry extends RequestRow {
  id: number;
  /** tokens × price × multiplier = cost, from `billedAt`; null without a snapshot. */
  breakdown: CostBreakdown | null;
  /** Cache-read tokens over all prompt tokens, 0 to 1. */
  cacheHitRate: number;
}

export interface InvariantReport {
  topupsMicro: number;
  /** Signed corrections, each with its note; they count as money put in (or taken out). */
  adjustmentsMicro: number;
  balanceMicro: number;
  /** Σ cost of every request logged: the rows kept plus the totals of rows retention pruned. */
  loggedCostMicro: number;
  /** The part of loggedCostMicro whose rows retention has pruned (ledger-prune.ts). */
  prunedCostMicro: number;
  ok: boolean;
  keyMismatches: { keyId: string; usageMicro: number; loggedMicro: number }[];
}

/** An admitted request, written before it is forwarded; its settlement removes it. */
export interface PendingRow {
  requestId: string;
  ts: number;
  keyId: string | null;
  keyName: string | null;
  model: string | null;
  inboundProtocol: string;
  stream: boolean;
  /** The reservation held for it. */
  heldMicro: number;
}

/** A failed ledger write since the gateway started: shown by `tollgate doctor`. */
export interface WriteFailure {
  count: number;
  last: string;
  at: number;
}

type Queued =
  | { kind: 'open'; pending: PendingRow }
  | { kind: 'settle'; row: RequestRow; resolve: () => void; reject: (err: unknown) => void };

/**
 * The ledger: usage log, wallet and per-key usage in SQLite (WAL). Each settled request is one
 * transaction (log row + wallet debit + key usage), so the invariant
 * `top-ups − balance = Σ logged costs` holds after any crash. WAL with synchronous=NORMAL is
 * durable across a process crash (kill -9); only an OS crash can lose the last commits.
 *
 * Every value is checked before it is written (`rowProblem`) and again by SQLite's CHECK
 * constraints (ledger-schema.ts): money is whole micro-USD, never negative.
 *
 * An admitted request leaves a pending row before it is forwarded, removed in the transaction
 * that writes its settlement. The pending row is group-committed like the rest and not waited
 * for (no latency is added; its cost is one more insert and delete in a transaction that runs
 * anyway). After a crash the rows still pending are the requests that were cut off: the next
 * start closes each with an `interrupted` row (`closeInterrupted`), and until then
 * `tollgate doctor` reports them. Holds themselves live in memory, so a crash releases them.
 */
export class Ledger {
  private readonly db: Database.Database;
  private balance: number;
  private readonly keyUsage = new Map<string, number>();
  private readonly insertRow: Database.Statement;
  private readonly debit: Database.Statement;
  private readonly addKeyUsage: Database.Statement;
  private readonly openPending: Database.Statement;
  private readonly closePending: Database.Statement;
  private readonly writeTx: (items: Queued[]) => void;
  private queue: Queued[] = [];
  /** Requests this process has opened and not yet settled: their pending rows are not left over. */
  private readonly inFlight = new Set<string>();
  private failure: WriteFailure | null = null;
  /** Filters, stats, CSV and wallet history (ledger-reports.ts). */
  readonly reports: LedgerReports;
  private readonly rollup: (row: RequestRow) => void;
  private readonly sessionRollup: (row: RequestRow) => void;
  /** Agent sessions: their totals and the guards' state (ledger-sessions.ts). */
  readonly sessions: LedgerSessions;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'ledger.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.db.exec(ROLLUP_SCHEMA);
    this.db.exec(PRUNE_SCHEMA);
    this.db.exec(SESSIONS_SCHEMA);
    migrate(this.db);
    backfillRollup(this.db);
    this.reports = new LedgerReports(this.db);
    this.balance = this.readBalance();
    for (const r of this.db.prepare<[], KeyUsageRecord>('SELECT * FROM key_usage').all()) {
      this.keyUsage.set(r.key_id, r.used_micro);
    }
    this.insertRow = this.db.prepare(INSERT_ROW);
    this.debit = this.db.prepare('UPDATE wallet SET balance_micro = balance_micro - ? WHERE id = 1');
    this.rollup = rollupWriter(this.db);
    this.sessionRollup = sessionWriter(this.db);
    this.sessions = new LedgerSessions(this.db);
    this.addKeyUsage = this.db.prepare(`INSERT INTO key_usage (key_id, used_micro, requests) VALUES (?, ?, 1)
      ON CONFLICT (key_id) DO UPDATE SET used_micro = used_micro + excluded.used_micro, requests = requests + 1`);
    this.openPending = this.db
      .prepare(`INSERT OR REPLACE INTO pending (request_id, ts, key_id, key_name, model, inbound_protocol, stream, held_micro)
      VALUES (@requestId, @ts, @keyId, @keyName, @model, @inboundProtocol, @stream, @heldMicro)`);
    this.closePending = this.db.prepare('DELETE FROM pending WHERE request_id = ?');
    // What is queued in the same turn of the event loop is committed together (group commit):
    // one transaction, so the ledger stays consistent; each settle() resolves only after its
    // commit, so an answer is never acknowledged before its row is durable.
    this.writeTx = this.db.transaction((items: Queued[]) => {
      let debit = 0;
      for (const item of items) {
        if (item.kind === 'open') {
          this.openPending.run({ ...item.pending, stream: item.pending.stream ? 1 : 0 });
          continue;
        }
        const row = item.row;
        this.insertRow.run(rowParams(row));
        this.rollup(row);
        this.sessionRollup(row);
        this.closePending.run(row.requestId);
        debit += row.costMicro;
        if (row.keyId !== null) this.addKeyUsage.run(row.keyId, row.costMicro);
      }
      if (debit > 0) this.debit.run(debit);
    });
  }

  balanceMicro(): number {
    return this.balance;
  }

  keyUsageMicro(keyId: string): number {
    return this.keyUsage.get(keyId) ?? 0;
  }

  /** Records an admitted request before it is forwarded (see the class comment); settle() closes it. */
  open(pending: PendingRow): void {
    this.inFlight.add(pending.requestId);
    this.enqueue({ kind: 'open', pending });
  }

  /**
   * Writes the log row, debits the wallet and adds to the key's usage, in one transaction with
   * the other rows settled in the same event-loop turn. The in-memory balance and key usage
   * change at once, so the next reservation already sees them; the promise resolves once the
   * row is committed. Never throws: a row that breaks the ledger's rules, or a failed commit,
   * rejects the promise and is kept for `tollgate doctor` (writeFailure()).
   */
  settle(row: RequestRow): Promise<void> {
    this.inFlight.delete(row.requestId);
    const problem = rowProblem(row);
    if (problem) {
      const err = new RangeError(`ledger row ${row.requestId} refused: ${problem}`);
      this.noteFailure(err);
      return Promise.reject(err);
    }
    this.balance -= row.costMicro;
    if (row.keyId !== null) this.keyUsage.set(row.keyId, this.keyUsageMicro(row.keyId) + row.costMicro);
    return new Promise((resolve, reject) => this.enqueue({ kind: 'settle', row, resolve, reject }));
  }

  private enqueue(item: Queued): void {
    this.queue.push(item);
    if (this.queue.length === 1) setImmediate(() => this.flush());
  }

  /** Commits what is queued; on failure gives the rows' money back in memory and rejects them. */
  flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    try {
      this.writeTx(batch);
    } catch (err) {
      this.noteFailure(err);
      for (const item of batch) {
        if (item.kind !== 'settle') continue;
        const { row } = item;
        this.balance += row.costMicro;
        if (row.keyId !== null) this.keyUsage.set(row.keyId, this.keyUsageMicro(row.keyId) - row.costMicro);
        item.reject(err);
      }
      return;
    }
    for (const item of batch) if (item.kind === 'settle') item.resolve();
  }

  private noteFailure(err: unknown): void {
    this.failure = {
      count: (this.failure?.count ?? 0) + 1,
      last: (err as Error).message ?? String(err),
      at: Date.now(),
    };
  }

  /** Ledger writes that failed since the gateway started (disk full, a refused row), or null. */
  writeFailure(): WriteFailure | null {
    return this.failure;
  }

  topup(amountMicro: number, note: string | null = null): number {
    if (!Number.isSafeInteger(amountMicro) || amountMicro <= 0 || !Number.isSafeInteger(this.balance + amountMicro)) {
      throw new RangeError(
        `a top-up must be a positive whole number of micro-USD that keeps the balance a safe integer, not ${amountMicro}`,
      );
    }
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO wallet_tx (ts, kind, amount_micro, note) VALUES (?, ?, ?, ?)')
        .run(Date.now(), 'topup', amountMicro, note);
      this.db.prepare('UPDATE wallet SET balance_micro = balance_micro + ? WHERE id = 1').run(amountMicro);
    })();
    this.balance += amountMicro;
    return this.balance;
  }

  /**
   * A signed correction with its note: the wallet moves by `amountMicro` (negative takes money
   * out). It counts in the invariant beside the top-ups: top-ups + adjustments − balance = Σ costs.
   */
  adjust(amountMicro: number, note: string): number {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO wallet_tx (ts, kind, amount_micro, note) VALUES (?, ?, ?, ?)')
        .run(Date.now(), 'adjustment', amountMicro, note);
      this.db.prepare('UPDATE wallet SET balance_micro = balance_micro + ? WHERE id = 1').run(amountMicro);
    })();
    this.balance += amountMicro;
    return this.balance;
  }

  topupsMicro(): number {
    return this.txSum('topup');
  }

  adjustmentsMicro(): number {
    return this.txSum('adjustment');
  }

  private txSum(kind: WalletTxRecord['kind']): number {
    return this.sum('SELECT COALESCE(SUM(amount_micro), 0) AS s FROM wallet_tx WHERE kind = ?', kind);
  }

  /** A query's one figure, `s`. */
  private sum(sql: string, ...args: string[]): number {
    return this.db.prepare<string[], { s: number }>(sql).get(...args)?.s ?? 0;
  }

  /** The wallet's stored balance (its one row is made with the schema). */
  private readBalance(): number {
    return this.db.prepare<[], WalletRecord>('SELECT * FROM wallet WHERE id = 1').get()?.balance_micro ?? 0;
  }

  /** Retention: request rows before `before` (epoch ms) keep only their daily money totals (ledger-prune.ts). */
  prune(before: number): PruneResult {
    this.flush();
    return pruneBefore(this.db, before);
  }

  logs(q: LogPageQuery): LogEntry[] {
    return this.reports.logs(q);
  }

  /**
   * top-ups + adjustments − balance = Σ logged costs (pruned rows by their kept totals), and each
   * key's usage = Σ of its logged costs.
   */
  checkInvariant(): InvariantReport {
    const balanceMicro = this.readBalance();
    const topupsMicro = this.topupsMicro();
    const adjustmentsMicro = this.adjustmentsMicro();
    const pruned = prunedCosts(this.db);
    const loggedCostMicro = this.sum('SELECT COALESCE(SUM(cost_micro), 0) AS s FROM requests') + pruned.totalMicro;
    const keyMismatches = this.db
      .prepare<[], InvariantReport['keyMismatches'][number]>(
        `SELECT u.key_id AS keyId, u.used_micro AS usageMicro,
          (SELECT COALESCE(SUM(cost_micro), 0) FROM requests r WHERE r.key_id = u.key_id) AS loggedMicro
          FROM key_usage u`,
      )
      .all()
      .map((k) => ({ ...k, loggedMicro: k.loggedMicro + (pruned.byKey.get(k.keyId) ?? 0) }))
      .filter((k) => k.usageMicro !== k.loggedMicro);
    const ok = topupsMicro + adjustmentsMicro - balanceMicro === loggedCostMicro && keyMismatches.length === 0;
    return {
      topupsMicro,
      adjustmentsMicro,
      balanceMicro,
      loggedCostMicro,
      prunedCostMicro: pruned.totalMicro,
      ok,
      keyMismatches,
    };
  }

  /** What `tollgate doctor` checks beyond the invariant (ledger-checks.ts). */
  problems(quotas: ReadonlyMap<string, number>): LedgerProblems {
    return ledgerProblems(this.db, quotas, this.inFlight);
  }

  /**
   * Closes the pending rows a stopped gateway left (it crashed or was killed while they were in
   * flight): each becomes an `interrupted` row that charged nothing, its hold already gone with
   * the process. Called once at start, before any request is admitted. Returns how many.
   */
  closeInterrupted(): number {
    const left = this.db.prepare<[], PendingRecord>('SELECT * FROM pending').all();
    const leftover = left.filter((p) => !this.inFlight.has(p.request_id));
    if (leftover.length === 0) return 0;
    this.db.transaction(() => {
      for (const p of leftover) {
        const row = interruptedRow(p);
        this.insertRow.run(rowParams(row));
        this.rollup(row);
        this.closePending.run(p.request_id);
      }
    })();
    return leftover.length;
  }

  close(): void {
    this.flush();
    this.db.close();
  }
}

/** The row that records a request a stopped gateway never settled. */
function interruptedRow(p: PendingRecord): RequestRow {
  const held = p.held_micro;
  return {
    requestId: p.request_id,
    ts: p.ts,
    keyId: p.key_id,
    keyName: p.key_name,
    model: p.model,
    servedModel: null,
    upstreamModel: null,
    line: null,
    attempts: 0,
    inboundProtocol: p.inbound_protocol,
    upstreamProtocol: null,
    stream: p.stream === 1,
    status: 500,
    errorCode: 'gateway_interrupted',
    errorMessage: `Tollgate stopped (a crash or kill) before this request was settled; the ${held} micro-USD held for it were released and nothing was charged.`,
    usage: emptyUsage(),
    usageEstimated: false,
    costMicro: 0,
    unchargedMicro: 0,
    latencyMs: 0,
    ttfbMs: null,
    notes: 'interrupted: closed at the next start',
    billedAt: null,
    session: null,
    agent: null,
    tool: null,
    project: null,
    savedMicro: 0,
  };
}

/** The INSERT of one `requests` row: each usage bucket's column (contract/usage-buckets.ts) takes the parameter named by its key. */
const INSERT_ROW = `INSERT INTO requests (request_id, ts, key_id, key_name, model, upstream_model, line,
  inbound_protocol, upstream_protocol, stream, status, error_code, error_message, usage_estimated, cost_micro,
  uncharged_micro, latency_ms, ttfb_ms, notes, served_model, attempts, prices_json, multiplier_ppm,
  session, agent, tool, project, saved_micro,
  ${BUCKET_KEYS.map((k) => USAGE_BUCKETS[k].column).join(', ')})
  VALUES (@requestId, @ts, @keyId, @keyName, @model, @upstreamModel, @line,
  @inboundProtocol, @upstreamProtocol, @stream, @status, @errorCode, @errorMessage, @usageEstimated, @costMicro,
  @unchargedMicro, @latencyMs, @ttfbMs, @notes, @servedModel, @attempts, @pricesJson, @multiplierPpm,
  @session, @agent, @tool, @project, @savedMicro,
  ${BUCKET_KEYS.map((k) => `@${k}`).join(', ')})`;

/** A row as the INSERT statement's named parameters. */
function rowParams(row: RequestRow): Record<string, unknown> {
  return {
    ...row,
    ...row.usage,
    stream: row.stream ? 1 : 0,
    usageEstimated: row.usageEstimated ? 1 : 0,
    pricesJson: row.billedAt ? JSON.stringify(row.billedAt.prices) : null,
    multiplierPpm: row.billedAt?.multiplierPpm ?? null,
  };
}

const wholeOrNull = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isSafeInteger(v));
const whole = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Why a row may not be written (a value SQLite would store as a REAL, or a negative amount), or undefined. */
export function rowProblem(row: RequestRow): string | undefined {
  if (!whole(row.costMicro)) return `cost ${row.costMicro} is not a whole non-negative number of micro-USD`;
  if (!whole(row.savedMicro)) return `saved ${row.savedMicro} is not a whole non-negative number of micro-USD`;
  if (!whole(row.unchargedMicro))
    return `uncharged ${row.unchargedMicro} is not a whole non-negative number of micro-USD`;
  for (const k of USAGE_KEYS)
    if (!whole(row.usage[k])) return `${k} ${row.usage[k]} is not a whole non-negative number`;
  if (!wholeOrNull(row.ttfbMs) || !whole(row.latencyMs) || !whole(row.attempts) || !whole(row.status) || !whole(row.ts))
    return 'a time, status or count is not a whole number';
  return undefined;
}
