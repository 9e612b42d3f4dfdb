import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { GatewayError } from '../core/errors.js';
import { usdExact } from '../contract/money.js';
import { openSqlite } from './sqlite.js';
import type { Usage } from '../core/usage.js';
import { ledgerProblems, type LedgerProblems } from './ledger-checks.js';
import type { KeyUsageRecord, PendingRecord, WalletRecord, WalletTxRecord } from './ledger-records.js';
import { migrate, SCHEMA } from './ledger-schema.js';
import type { CostBreakdown, PriceSnapshot } from '../core/cost-breakdown.js';
import { LedgerReports, type LogPageQuery } from './ledger-reports.js';
import { PRUNE_SCHEMA, pruneBefore, prunedCosts, type PruneResult } from './ledger-prune.js';
import {
  backfillRollup,
  catchUpRollup,
  rekeyRollup,
  ROLLUP_MARK_SCHEMA,
  ROLLUP_SCHEMA,
  UsageRollup,
} from './usage-rollup.js';
import { Checkpoints } from './ledger-checkpoint.js';
import { GroupCommit, LedgerWriteError, pendingProblem, rowProblem, type Queued } from './ledger-writes.js';

export { LedgerWriteError } from './ledger-writes.js';
import { LedgerSessions, SESSIONS_SCHEMA } from './ledger-sessions.js';
import { interruptedRow, PendingRows } from './ledger-pending.js';

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

/**
 * The ledger: usage log, wallet and per-key usage in SQLite (WAL). A settled request's log row,
 * wallet debit and key usage are written in one transaction (shared with the other rows settled
 * in the same event-loop turn: ledger-writes.ts), so the invariant
 * `top-ups − balance = Σ logged costs` holds after any crash. WAL with synchronous=NORMAL is
 * durable across a process crash (kill -9); only an OS crash can lose the last commits.
 *
 * Every value is checked before it joins a batch (`rowProblem`: whole non-negative money, text
 * where text belongs, a cost the balance can pay) and again by SQLite's CHECK constraints
 * (ledger-schema.ts). An entry that still cannot be written fails alone.
 *
 * An admitted request that is still open PENDING_AFTER_MS after its admission has a pending row,
 * removed in the transaction that writes its settlement. Most requests settle sooner and never
 * write one (nor delete it): the pending row is a crash record, and writing it at once cost a fifth
 * of the ledger's CPU a request (docs/performance.md, "Pending rows, written late"). The pending
 * row is group-committed like the rest and never waited for. After a crash the rows still pending
 * are the requests that were cut off: the next start closes each with an `interrupted` row
 * (`closeInterrupted`), and until then `tollgate doctor` reports them. A request admitted less
 * than PENDING_AFTER_MS before a crash has no such row (docs/money.md): it charged nothing, and
 * holds live in memory, so a crash releases them.
 */
export class Ledger {
  private readonly db: Database.Database;
  private balance: number;
  private readonly keyUsage = new Map<string, number>();
  private readonly writes: GroupCommit;
  /** The WAL's checkpoints, off the commits that settle requests (ledger-checkpoint.ts). */
  private readonly checkpoints: Checkpoints;
  private queue: Queued[] = [];
  /** A commit is scheduled for this turn's check phase (enqueue). */
  private flushSoon = false;
  /** Requests this process has opened and not yet settled: their pending rows are not left over. */
  private readonly inFlight = new Set<string>();
  /** The hourly totals of committed rows, written within a second (usage-rollup.ts). */
  private readonly rollup: UsageRollup;
  /** When admitted requests' pending rows are written (ledger-pending.ts). */
  private readonly pending = new PendingRows(() => this.flush());
  private failure: WriteFailure | null = null;
  /** Money held for requests in flight (billing binds its reservations here): adjustments leave it alone. */
  private held: () => number = () => 0;
  /** Filters, stats, CSV and wallet history (ledger-reports.ts). */
  readonly reports: LedgerReports;
  /** Agent sessions: their totals and the guards' state (ledger-sessions.ts). */
  readonly sessions: LedgerSessions;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'ledger.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.checkpoints = new Checkpoints(this.db);
    this.db.exec(SCHEMA);
    this.db.exec(ROLLUP_SCHEMA);
    this.db.exec(ROLLUP_MARK_SCHEMA);
    this.db.exec(PRUNE_SCHEMA);
    this.db.exec(SESSIONS_SCHEMA);
    migrate(this.db);
    rekeyRollup(this.db);
    backfillRollup(this.db);
    catchUpRollup(this.db);
    this.rollup = new UsageRollup(this.db);
    this.reports = new LedgerReports(this.db, () => this.rollup.writeNow());
    this.balance = this.readBalance();
    for (const r of this.db.prepare<[], KeyUsageRecord>('SELECT * FROM key_usage').all()) {
      this.keyUsage.set(r.key_id, r.used_micro);
    }
    // What is queued in the same turn of the event loop is committed together (group commit,
    // ledger-writes.ts): one transaction, in which an entry that cannot be written fails alone;
    // each settle() resolves only after its commit, so an answer is never acknowledged before its
    // row is durable.
    this.writes = new GroupCommit(this.db);
    this.sessions = new LedgerSessions(this.db, () => this.rollup.writeNow());
  }

  /**
   * Where the money held for requests in flight is read (billing/reservations.ts), so that no
   * adjustment takes it: settling those requests could otherwise take the balance below zero.
   */
  bindHolds(held: () => number): void {
    this.held = held;
  }

  balanceMicro(): number {
    return this.balance;
  }

  keyUsageMicro(keyId: string): number {
    return this.keyUsage.get(keyId) ?? 0;
  }

  /**
   * Records an admitted request before it is forwarded (see the class comment); settle() closes
   * it. Its pending row is written only if it is still open PENDING_AFTER_MS from now.
   */
  open(pending: PendingRow): void {
    this.inFlight.add(pending.requestId);
    const problem = pendingProblem(pending);
    // Refused alone: the request goes on without its pending row (its settlement still writes its row).
    if (problem) {
      this.noteFailure(new LedgerWriteError(String(pending.requestId), problem, false));
      return;
    }
    this.pending.open(pending);
  }

  /**
   * Writes the log row, debits the wallet and adds to the key's usage, in one transaction with
   * the other rows settled in the same event-loop turn. The in-memory balance and key usage
   * change at once, so the next reservation already sees them; the promise resolves once the
   * row is committed. Never throws: a row that breaks the ledger's rules, or one that could not be
   * written, rejects the promise with a LedgerWriteError and is kept for `tollgate doctor`
   * (writeFailure()); the other rows of its batch are written all the same.
   */
  settle(row: RequestRow): Promise<void> {
    this.inFlight.delete(row.requestId);
    const problem = rowProblem(row, this.balance);
    if (problem) {
      // Its pending row (written, or still to be when due) stays for the doctor until a row stands in.
      const err = new LedgerWriteError(String(row.requestId), problem, false);
      this.noteFailure(err);
      return Promise.reject(err);
    }
    this.balance -= row.costMicro;
    if (row.keyId !== null) this.keyUsage.set(row.keyId, this.keyUsageMicro(row.keyId) + row.costMicro);
    const pending = this.pending.settled(row.requestId);
    return new Promise((resolve, reject) => this.enqueue({ kind: 'settle', row, pending, resolve, reject }));
  }

  /**
   * A settlement is committed in this turn's check phase (its answer waits for it), with the
   * others of that turn. Pending rows are queued only by a commit (`flush`, from ledger-pending.ts).
   */
  private enqueue(item: Queued): void {
    this.queue.push(item);
    if (this.flushSoon) return;
    this.flushSoon = true;
    setImmediate(() => {
      this.flushSoon = false;
      this.flush();
    });
  }

  /**
   * Commits what is queued, with the pending rows that are due (every one not yet written with
   * `all`). An entry that failed alone gives its money back in memory and rejects with its own
   * error; should the commit itself fail (a full disk), every entry does.
   */
  flush(all = false): void {
    for (const pending of this.pending.due(all)) this.queue.push({ kind: 'open', pending });
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let failed: Map<Queued, LedgerWriteError>;
    try {
      failed = this.writes.commit(batch);
    } catch (err) {
      failed = new Map(
        batch.map((item) => [
          item,
          LedgerWriteError.of(item.kind === 'open' ? item.pending.requestId : item.row.requestId, err),
        ]),
      );
    }
    this.checkpoints.committed();
    if (failed.size > 0) this.afterFailures(batch, failed);
    const settled: RequestRow[] = [];
    for (const item of batch) if (item.kind === 'settle' && !failed.has(item)) settled.push(item.row);
    this.rollup.add(settled);
    for (const item of batch) {
      if (item.kind !== 'settle') continue;
      const err = failed.get(item);
      if (!err) {
        item.resolve();
        continue;
      }
      const { row } = item;
      this.balance += row.costMicro;
      if (row.keyId !== null) this.keyUsage.set(row.keyId, this.keyUsageMicro(row.keyId) - row.costMicro);
      item.reject(err);
    }
  }

  /**
   * Notes each failure for the doctor, and keeps a trace of each request whose settlement was not
   * written: its pending row, written now if it never was (a refused row that stands in for it
   * deletes it, as a settlement does).
   */
  private afterFailures(batch: Queued[], failed: Map<Queued, LedgerWriteError>): void {
    const rewrite: PendingRow[] = [];
    for (const item of batch) {
      const err = failed.get(item);
      if (!err) continue;
      this.noteFailure(err);
      if (item.kind === 'settle') this.pending.failed(item.row.requestId, item.pending, rewrite);
    }
    if (rewrite.length === 0) return;
    const opens: Queued[] = rewrite.map((pending) => ({ kind: 'open', pending }));
    let again: Map<Queued, LedgerWriteError>;
    try {
      again = this.writes.commit(opens);
    } catch (err) {
      again = new Map(opens.map((o, i) => [o, LedgerWriteError.of(rewrite[i]!.requestId, err)]));
    }
    opens.forEach((o, i) => {
      const err = again.get(o);
      if (err) this.noteFailure(err);
      else this.pending.wrote(rewrite[i]!.requestId);
    });
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
   * A negative one may take what is free, never what is held for requests in flight (a 400
   * GatewayError): their settlements are owed that money (docs/money.md).
   */
  adjust(amountMicro: number, note: string): number {
    const held = this.held();
    if (amountMicro < 0 && this.balance + amountMicro < held) {
      throw new GatewayError(
        'invalid_request',
        `${usdExact(held)} of the balance of ${usdExact(this.balance)} is held for requests in flight: an adjustment may take at most ${usdExact(Math.max(0, this.balance - held))} now. Retry once they have finished.`,
        { code: 'balance_held' },
      );
    }
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
    const rows = leftover.map(interruptedRow);
    this.writes.closeInterrupted(rows);
    this.rollup.add(rows);
    this.rollup.writeNow();
    return leftover.length;
  }

  /** Writes what is queued, the pending rows of requests still open included, and closes the ledger. */
  close(): void {
    this.pending.stop();
    this.rollup.stop();
    this.flush(true);
    this.rollup.writeNow();
    this.db.close();
  }
}
