import { randomUUID } from 'node:crypto';
import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { Reservation } from '../billing/reservations.js';
import type { KeyRecord } from '../keys/types.js';
import type { LineRecord } from '../store/types.js';
import type { GatewayError } from './errors.js';
import type { InboundProtocolId } from './protocol-ids.js';
import type { Usage } from './usage.js';

/** Everything known about one model request as it moves through the pipeline. */
export interface Exchange {
  readonly requestId: string;
  readonly ts: number;
  readonly startedAt: number;
  readonly inbound: InboundProtocolId;
  key: KeyRecord | null;
  /** The model id the client asked for. */
  model: string | null;
  stream: boolean;
  admission: Admission | null;
  ttfbMs: number | null;
  settled: boolean;
}

export interface Admission {
  model: CatalogueModel;
  multiplierPpm: number;
  line: LineRecord;
  upstreamModel: string;
  reservation: Reservation;
}

/** How the upstream leg ended. */
export interface Outcome {
  status: number;
  usage: Usage | null;
  usageEstimated: boolean;
  error: GatewayError | null;
}

export function newExchange(inbound: InboundProtocolId): Exchange {
  return {
    requestId: `req_${randomUUID().replaceAll('-', '')}`,
    ts: Date.now(),
    startedAt: performance.now(),
    inbound,
    key: null,
    model: null,
    stream: false,
    admission: null,
    ttfbMs: null,
    settled: false,
  };
}

export function markFirstByte(ex: Exchange): void {
  ex.ttfbMs ??= Math.round(performance.now() - ex.startedAt);
}
