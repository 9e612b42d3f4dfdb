/**
 * When an admitted request's pending row is written (ledger.ts, "pending rows"). The pending row is
 * a crash record: it names a request that was forwarded and never settled, so that the next start
 * closes it with an `interrupted` row. Most requests settle within milliseconds, and writing the
 * row at admission and deleting it at settlement cost about a fifth of the ledger's CPU a request
 * (docs/performance.md, "Pending rows, written late"). So a request's pending row is written only
 * once it has been open for PENDING_AFTER_MS: by the first commit after that, or by a timer when no
 * settlement commits. A request settled sooner writes neither the row nor its delete.
 */
import { emptyUsage } from '../core/usage.js';
import type { PendingRow, RequestRow } from './ledger.js';
import type { PendingRecord } from './ledger-records.js';

/**
 * How long an admitted request may stay open before its pending row is written: the window in
 * which a crash leaves an admitted request without its `interrupted` row (docs/money.md).
 */
export const PENDING_AFTER_MS = 250;

/** What a settlement's commit does about its request's pending row. */
export interface PendingOutcome {
  /** Its pending row went to a commit: the settlement deletes it. */
  closes: boolean;
  /** Its pending row was never written: kept, should the settlement fail (`failed`). */
  unwritten: PendingRow | undefined;
}

export class PendingRows {
  /** Not written yet, in admission order, with the time (Date.now()) from which each is due. */
  private readonly unwritten = new Map<string, { pending: PendingRow; due: number }>();
  /** Handed to a commit: the settlement deletes the row. */
  private readonly written = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /** `commit` commits what is queued, the due pending rows with it (Ledger.flush). */
  constructor(private readonly commit: () => void) {}

  open(pending: PendingRow): void {
    this.unwritten.set(pending.requestId, { pending, due: Date.now() + PENDING_AFTER_MS });
    if (this.timer === undefined) this.arm(PENDING_AFTER_MS);
  }

  /** The request is being settled: whether its commit deletes a pending row. */
  settled(requestId: string): PendingOutcome {
    const u = this.unwritten.get(requestId);
    if (u) this.unwritten.delete(requestId);
    return { closes: this.written.delete(requestId), unwritten: u?.pending };
  }

  /**
   * Its settlement was not written: a pending row it deleted is still there, and one never written
   * is to be written now (`written`), so the request is not left without a trace (the doctor names
   * it until a row stands in for it).
   */
  failed(requestId: string, outcome: PendingOutcome, rewrite: PendingRow[]): void {
    if (outcome.closes) this.written.add(requestId);
    else if (outcome.unwritten) rewrite.push(outcome.unwritten);
  }

  /** These pending rows were written (or handed to a commit): their settlements delete them. */
  wrote(requestId: string): void {
    this.written.add(requestId);
  }

  /** The pending rows due now (every one not yet written with `all`), oldest first; each is taken. */
  due(all: boolean): PendingRow[] {
    if (this.unwritten.size === 0) return [];
    const now = Date.now();
    const out: PendingRow[] = [];
    for (const [id, u] of this.unwritten) {
      if (!all && u.due > now) break;
      this.unwritten.delete(id);
      this.written.add(id);
      out.push(u.pending);
    }
    return out;
  }

  /** The timer's work is done by `commit(true)` at close. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * For requests that outlive PENDING_AFTER_MS while no settlement commits; unref'd, so it never
   * keeps a process alive.
   */
  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.commit();
      const next = this.unwritten.values().next();
      if (!next.done) this.arm(Math.max(1, next.value.due - Date.now()));
    }, ms);
    this.timer.unref();
  }
}

/** The row that records a request a stopped gateway never settled. */
export function interruptedRow(p: PendingRecord): RequestRow {
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
