import { newRequestId } from '../store/request-id.js';
import type { Admission } from '../billing/billing.js';
import { GatewayError } from '../core/errors.js';
import type { FormatId } from '../contract/formats.js';
import type { Usage } from '../core/usage.js';
import type { LedgerWriteError } from '../store/ledger.js';
import type { KeyRecord } from '../store/types.js';
import type { Attribution } from '../sessions/sessions.js';

/** Everything known about one request as it moves through the relay. */
export interface Exchange {
  readonly requestId: string;
  readonly ts: number;
  readonly startedAt: number;
  /** The wire format the client spoke. */
  readonly format: FormatId;
  key: KeyRecord | null;
  /**
   * The agent session the request belongs to (docs/sessions.md), set with the key: a plain id
   * that any part of the gateway may read (line affinity keys by it), and the full attribution.
   */
  sessionId: string | null;
  attribution: Attribution | null;
  /** The model id the client asked for. */
  model: string | null;
  /** Upstream attempts made (more than 1 when a line failed and the next one was tried). */
  attempts: number;
  stream: boolean;
  admission: Admission | null;
  ttfbMs: number | null;
  settled: boolean;
  /** False for requests that are not model calls (model lists, token counts): they get no ledger row. */
  billable: boolean;
  /** What translation could not carry (dropped tool kinds, signatures…), for the log. */
  notes: string[];
  /**
   * Set by forward() for each attempt: writes the ledger row. Called before the client sees the end
   * of the answer; resolves null, or why the row could not be written.
   */
  settleHook: ((outcome: Outcome) => Promise<LedgerWriteError | null>) | null;
}

/** How the upstream leg ended. */
export interface Outcome {
  status: number;
  usage: Usage | null;
  usageEstimated: boolean;
  error: GatewayError | null;
}

export function newExchange(format: FormatId, billable: boolean): Exchange {
  return {
    requestId: newRequestId(),
    ts: Date.now(),
    startedAt: performance.now(),
    format,
    key: null,
    sessionId: null,
    attribution: null,
    model: null,
    attempts: 0,
    stream: false,
    admission: null,
    ttfbMs: null,
    settled: false,
    billable,
    notes: [],
    settleHook: null,
  };
}

/**
 * Writes the ledger row now, before the last bytes of the answer go out, so that an answer the
 * client saw complete is never missing from the ledger, even if the process is killed right after.
 * A row that cannot be written (a full disk, or a row the ledger refused) withholds the end of the
 * answer: the client gets its protocol's error instead, saying why, and the wallet is not debited
 * for a request it has no row of.
 */
export async function settleBeforeEnd(ex: Exchange, outcome: Outcome): Promise<Outcome> {
  const failed = await ex.settleHook?.(outcome);
  if (failed) throw ledgerWriteFailed(failed);
  return outcome;
}

/** What the client is told when its request's row could not be written: the data dir, or the row itself. */
export function ledgerWriteFailed(cause: Pick<LedgerWriteError, 'storage' | 'reason'>): GatewayError {
  const message = cause.storage
    ? 'Tollgate could not record this request in its ledger (is the disk of its data dir full or read-only?), so the answer is withheld. See the gateway log; retry once the data dir can be written.'
    : `Tollgate's ledger refused this request's row (${cause.reason.slice(0, 300)}), so the answer is withheld and nothing was charged. This is a fault in Tollgate: see the gateway log.`;
  return new GatewayError('internal', message, { code: 'ledger_write_failed' });
}

export function markFirstByte(ex: Exchange): void {
  ex.ttfbMs ??= Math.round(performance.now() - ex.startedAt);
}
