import { randomUUID } from 'node:crypto';
import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { Reservation } from '../billing/reservations.js';
import type { KeyRecord, LineRecord } from '../store/types.js';
import type { GatewayError } from './errors.js';
import type { FormatId } from './formats.js';
import type { Usage } from './usage.js';

/** Everything known about one model request as it moves through the pipeline. */
export interface Exchange {
  readonly requestId: string;
  readonly ts: number;
  readonly startedAt: number;
  readonly inbound: FormatId;
  key: KeyRecord | null;
  /** The model id the client asked for. */
  model: string | null;
  /** Upstream attempts made (more than 1 when a line failed and the next one was tried). */
  attempts: number;
  /** Holds a slot of the key's concurrency limit, to give back when settled. */
  holdsKeySlot: boolean;
  stream: boolean;
  admission: Admission | null;
  ttfbMs: number | null;
  settled: boolean;
  /** False for requests that are not model calls (model lists, count_tokens): they get no ledger row. */
  billable: boolean;
  /** What translation could not carry (dropped tool kinds, signatures…), for the log. */
  notes: string[];
  /** Set by forward(): writes the ledger row. Relays call it before the client sees the end of the answer. */
  settleHook: ((outcome: Outcome) => Promise<void>) | null;
}

export interface Admission {
  /** The catalogue model served (after aliases). */
  model: CatalogueModel;
  multiplierPpm: number;
  /** Lines serving the model, in the order to try them. */
  candidates: LineRecord[];
  /** The line of the current (or last) attempt, and the id that line knows the model by. */
  line: LineRecord;
  upstreamModel: string;
  reservation: Reservation;
  /** The cheap prompt estimate the reservation was made with. */
  estimatedInputTokens: number;
}

/** How the upstream leg ended. */
export interface Outcome {
  status: number;
  usage: Usage | null;
  usageEstimated: boolean;
  error: GatewayError | null;
}

export function newExchange(inbound: FormatId, billable: boolean): Exchange {
  return {
    requestId: `req_${randomUUID().replaceAll('-', '')}`,
    ts: Date.now(),
    startedAt: performance.now(),
    inbound,
    key: null,
    model: null,
    attempts: 0,
    holdsKeySlot: false,
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
 */
export async function settleBeforeEnd(ex: Exchange, outcome: Outcome): Promise<Outcome> {
  await ex.settleHook?.(outcome);
  return outcome;
}

export function markFirstByte(ex: Exchange): void {
  ex.ttfbMs ??= Math.round(performance.now() - ex.startedAt);
}
