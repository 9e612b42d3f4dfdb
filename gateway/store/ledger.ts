import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { CostBreakdown, PriceSnapshot } from '../core/cost-breakdown.js';
import type { Usage } from '../core/usage.js';
import { LedgerReports } from './ledger-reports.js';
import { PRUNE_SCHEMA, pruneBefore, prunedCosts, type PruneResult } from './ledger-prune.js';
import { backfillRollup, ROLLUP_SCHEMA, rollupWriter } from './usage-rollup.js';

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
  /** True when the upstream reported no usage and the figures were counted by Tollgate. */
  usageEstimated: boolean;
  costMicro: number;
  latencyMs: number;
  ttfbMs: number | null;
  /** What translation dropped or changed, "; "-separated; null when nothing. */
  notes: string | null;
  /**
   * The unit prices and multiplier the row was billed at, kept with it so a later price change
   * never changes what it says; null when no model was admitted (and for rows older than the snapshot).
   */
  billedAt: PriceSnapshot | null;
}

export interface LogQuery {
  keyName?: string | undefined;
  model?: string | undefined;
  limit?: number | undefined;
  beforeId?: number | undefined;
}

export interface LogEntry extends RequestRow {
  id: number;
  /** tokens × price × multiplier = cost, from `billedAt`; null without a snapshot. */
  breakdown: CostBreakdown | null;
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS wallet (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  balance_micro INTEGER NOT NULL
);
INSERT OR IGNORE INTO wallet (id, balance_micro) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS wallet_tx (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('topup', 'adjustment')),
  amount_micro INTEGER NOT NULL,
  note TEXT
);
CREATE TABLE IF NOT EXISTS key_usage (
  key_id TEXT PRIMARY KEY,
  used_micro INTEGER NOT NULL,
  requests INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  key_id TEXT,
  key_name TEXT,
  model TEXT,
  upstream_model TEXT,
  line TEXT,
  inbound_protocol TEXT NOT NULL,
  upstream_protocol TEXT,
  stream INTEGER NOT NULL,
  status INTEGER NOT NULL,
  error_code TEXT,
  error_message TEXT,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  audio_input_tokens INTEGER NOT NULL,
  image_input_tokens INTEGER NOT NULL,
  usage_estimated INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  ttfb_ms INTEGER,
  notes TEXT,
  served_model TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  prices_json TEXT,
  multiplier_ppm INTEGER
);
CREATE INDEX IF NOT EXISTS requests_ts ON requests (ts);
-- One column each, so that SQLite keeps the entries of one value in rowid order: a filtered page
-- of the log (WHERE line = ? ORDER BY id DESC LIMIT n) then reads n index entries, with no sort.
CREATE INDEX IF NOT EXISTS requests_key ON requests (key_name);
CREATE INDEX IF NOT EXISTS requests_model ON requests (model);
CREATE INDEX IF NOT EXISTS requests_line ON requests (line);
CREATE INDEX IF NOT EXISTS requests_status ON requests (status);
CREATE INDEX IF NOT EXISTS requests_protocol ON requests (inbound_protocol);
`;

/**
 * The ledger: usage log, wallet and per-key usage in SQLite (WAL). Each settled request is one
 * transaction (log row + wallet debit + key usage), so the invariant
 * `top-ups − balance = Σ logged costs` holds after any crash. WAL with synchronous=NORMAL is
 * durable across a process crash (kill -9); only an OS crash can lose the last commits.
 */
export class Ledger {
  private readonly db: Database.Database;
  private balance: number;
  private readonly keyUsage = new Map<string, number>();
  private readonly insertRow: Database.Statement;
  private readonly debit: Database.Statement;
  private readonly addKeyUsage: Database.Statement;
  private readonly settleTx: (rows: RequestRow[]) => void;
  private pending: { row: RequestRow; resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Filters, stats, CSV and wallet history (ledger-reports.ts). */
  readonly reports: LedgerReports;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, 'ledger.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.db.exec(ROLLUP_SCHEMA);
    this.db.exec(PRUNE_SCHEMA);
    migrate(this.db);
    backfillRollup(this.db);
    this.reports = new LedgerReports(this.db);
    this.balance = (this.db.prepare('SELECT balance_micro AS b FROM wallet WHERE id = 1').get() as { b: number }).b;
    for (const r of this.db.prepare('SELECT key_id, used_micro FROM key_usage').all() as { key_id: string; used_micro: number }[]) {
      this.keyUsage.set(r.key_id, r.used_micro);
    }
    this.insertRow = this.db.prepare(`INSERT INTO requests (request_id, ts, key_id, key_name, model, upstream_model, line,
      inbound_protocol, upstream_protocol, stream, status, error_code, error_message, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, reasoning_tokens, audio_input_tokens, image_input_tokens, usage_estimated,
      cost_micro, latency_ms, ttfb_ms, notes, served_model, attempts, prices_json, multiplier_ppm) VALUES (@requestId, @ts, @keyId, @keyName, @model, @upstreamModel, @line,
      @inboundProtocol, @upstreamProtocol, @stream, @status, @errorCode, @errorMessage, @inputTokens, @outputTokens,
      @cacheReadTokens, @cacheWriteTokens, @reasoningTokens, @audioInputTokens, @imageInputTokens, @usageEstimated,
      @costMicro, @latencyMs, @ttfbMs, @notes, @servedModel, @attempts, @pricesJson, @multiplierPpm)`);
    this.debit = this.db.prepare('UPDATE wallet SET balance_micro = balance_micro - ? WHERE id = 1');
    const rollup = rollupWriter(this.db);
    this.addKeyUsage = this.db.prepare(`INSERT INTO key_usage (key_id, used_micro, requests) VALUES (?, ?, 1)
      ON CONFLICT (key_id) DO UPDATE SET used_micro = used_micro + excluded.used_micro, requests = requests + 1`);
    // Rows settled in the same turn of the event loop are committed together (group commit):
    // one transaction, so the ledger stays consistent; each settle() resolves only after its
    // commit, so an answer is never acknowledged before its row is durable.
    this.settleTx = this.db.transaction((rows: RequestRow[]) => {
      let debit = 0;
      for (const row of rows) {
        this.insertRow.run({
          ...row,
          ...row.usage,
          stream: row.stream ? 1 : 0,
          usageEstimated: row.usageEstimated ? 1 : 0,
          pricesJson: row.billedAt ? JSON.stringify(row.billedAt.prices) : null,
          multiplierPpm: row.billedAt?.multiplierPpm ?? null,
        });
        rollup(row);
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

  /**
   * Writes the log row, debits the wallet and adds to the key's usage, in one transaction with
   * the other rows settled in the same event-loop turn. The in-memory balance and key usage
   * change at once, so the next reservation already sees them; the promise resolves once the
   * row is committed.
   */
  settle(row: RequestRow): Promise<void> {
    this.balance -= row.costMicro;
    if (row.keyId !== null) this.keyUsage.set(row.keyId, this.keyUsageMicro(row.keyId) + row.costMicro);
    return new Promise((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is pending; on failure gives the rows' money back in memory and rejects them. */
  flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      this.settleTx(batch.map((p) => p.row));
    } catch (err) {
      for (const { row, reject } of batch) {
        this.balance += row.costMicro;
        if (row.keyId !== null) this.keyUsage.set(row.keyId, this.keyUsageMicro(row.keyId) - row.costMicro);
        reject(err);
      }
      return;
    }
    for (const p of batch) p.resolve();
  }

  topup(amountMicro: number, note: string | null = null): number {
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO wallet_tx (ts, kind, amount_micro, note) VALUES (?, ?, ?, ?)').run(Date.now(), 'topup', amountMicro, note);
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
      this.db.prepare('INSERT INTO wallet_tx (ts, kind, amount_micro, note) VALUES (?, ?, ?, ?)').run(Date.now(), 'adjustment', amountMicro, note);
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

  private txSum(kind: 'topup' | 'adjustment'): number {
    return (this.db.prepare('SELECT COALESCE(SUM(amount_micro), 0) AS s FROM wallet_tx WHERE kind = ?').get(kind) as { s: number }).s;
  }

  /** Retention: request rows before `before` (epoch ms) keep only their daily money totals (ledger-prune.ts). */
  prune(before: number): PruneResult {
    this.flush();
    return pruneBefore(this.db, before);
  }

  logs(q: LogQuery): LogEntry[] {
    return this.reports.logs({ key: q.keyName, model: q.model, limit: q.limit, beforeId: q.beforeId });
  }

  /**
   * top-ups + adjustments − balance = Σ logged costs (pruned rows by their kept totals), and each
   * key's usage = Σ of its logged costs.
   */
  checkInvariant(): InvariantReport {
    const balanceMicro = (this.db.prepare('SELECT balance_micro AS b FROM wallet WHERE id = 1').get() as { b: number }).b;
    const topupsMicro = this.topupsMicro();
    const adjustmentsMicro = this.adjustmentsMicro();
    const pruned = prunedCosts(this.db);
    const loggedCostMicro = (this.db.prepare('SELECT COALESCE(SUM(cost_micro), 0) AS s FROM requests').get() as { s: number }).s + pruned.totalMicro;
    const keyMismatches = (
      this.db
        .prepare(`SELECT u.key_id AS keyId, u.used_micro AS usageMicro,
          (SELECT COALESCE(SUM(cost_micro), 0) FROM requests r WHERE r.key_id = u.key_id) AS loggedMicro
          FROM key_usage u`)
        .all() as InvariantReport['keyMismatches']
    )
      .map((k) => ({ ...k, loggedMicro: k.loggedMicro + (pruned.byKey.get(k.keyId) ?? 0) }))
      .filter((k) => k.usageMicro !== k.loggedMicro);
    const ok = topupsMicro + adjustmentsMicro - balanceMicro === loggedCostMicro && keyMismatches.length === 0;
    return { topupsMicro, adjustmentsMicro, balanceMicro, loggedCostMicro, prunedCostMicro: pruned.totalMicro, ok, keyMismatches };
  }

  close(): void {
    this.flush();
    this.db.close();
  }
}

/** Brings a ledger written by an older build up to date: columns added since, and values renamed (user_version counts the renames done). */
function migrate(db: Database.Database): void {
  const columns = new Set((db.prepare('PRAGMA table_info(requests)').all() as { name: string }[]).map((c) => c.name));
  if (!columns.has('notes')) db.exec('ALTER TABLE requests ADD COLUMN notes TEXT');
  if (!columns.has('served_model')) db.exec('ALTER TABLE requests ADD COLUMN served_model TEXT');
  if (!columns.has('attempts')) db.exec('ALTER TABLE requests ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0');
  // The price snapshot: rows written before it have none (their cost stands; it cannot be explained).
  if (!columns.has('prices_json')) db.exec('ALTER TABLE requests ADD COLUMN prices_json TEXT');
  if (!columns.has('multiplier_ppm')) db.exec('ALTER TABLE requests ADD COLUMN multiplier_ppm INTEGER');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version < 1) {
    // The Messages interface logged itself as `anthropic-messages` while its upstream side was
    // `anthropic`; one wire format now has one id, so old rows take the one new rows carry.
    db.transaction(() => {
      db.prepare("UPDATE requests SET inbound_protocol = 'anthropic' WHERE inbound_protocol = 'anthropic-messages'").run();
      db.pragma('user_version = 1');
    })();
  }
  if (version < 2) {
    // Wallet transactions may now be adjustments: SQLite cannot change a CHECK, so the table is
    // copied into one that allows them (ids and rows kept as they are).
    db.transaction(() => {
      const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'wallet_tx'").get() as { sql: string }).sql;
      if (!sql.includes("'adjustment'")) {
        db.exec(`ALTER TABLE wallet_tx RENAME TO wallet_tx_v1;
          CREATE TABLE wallet_tx (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('topup', 'adjustment')), amount_micro INTEGER NOT NULL, note TEXT);
          INSERT INTO wallet_tx SELECT id, ts, kind, amount_micro, note FROM wallet_tx_v1;
          DROP TABLE wallet_tx_v1;`);
      }
      db.pragma('user_version = 2');
    })();
  }
  // Replaced by the one-column indexes, which serve the log's id-ordered pages without a sort.
  db.exec('DROP INDEX IF EXISTS requests_key_ts; DROP INDEX IF EXISTS requests_model_ts;');
}
