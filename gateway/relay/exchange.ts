import { randomUUID } from 'node:crypto';
import type { Admission } from '../billing/billing.js';
import type { GatewayError } from '../core/errors.js';
import type { FormatId } from '../core/formats.js';
import type { Usage } from '../core/usage.js';
import type { KeyRecord } from '../store/types.js';

/** Everything known about one request as it moves through the relay. */
export interface Exchange {
  readonly requestId: string;
  readonly ts: number;
  readonly startedAt: number;
  /** The wire format the client spoke. */
  readonly format: FormatId;
  key: KeyRecord | null;
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
  /** Set by forward() for each attempt: writes the ledger row. Called before the client sees the end of the answer. */
  settleHook: ((outcome: Outcome) => Promise<void>) | null;
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
    requestId: `req_${randomUUID().replaceAll('-', '')}`,
    ts: Date.now(),
    startedAt: performance.now(),
    format,
    key: null,
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
 */
export async function settleBeforeEnd(ex: Exchange, outcome: Outcome): Promise<Outcome> {
  await ex.settleHook?.(outcome);
  return outcome;
}

export function markFirstByte(ex: Exchange): void {
  ex.ttfbMs ??= Math.round(performance.now() - ex.startedAt);
}
