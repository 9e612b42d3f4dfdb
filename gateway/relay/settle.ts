import type { Billing } from '../billing/billing.js';
import type { Exchange, Outcome } from './exchange.js';

/**
 * Settles an exchange once: its ledger row (billing/billing.ts writes it and gives back what the
 * admission held). Later calls, and requests that are not model calls, do nothing. Resolves false
 * when the row could not be written.
 */
export function settle(billing: Pick<Billing, 'settle'>, ex: Exchange, outcome: Outcome): Promise<boolean> {
  if (ex.settled || !ex.billable) return Promise.resolve(true);
  ex.settled = true;
  const err = outcome.error;
  return billing.settle({
    admission: ex.admission,
    usage: outcome.usage,
    requestId: ex.requestId,
    ts: ex.ts,
    keyId: ex.key?.id ?? null,
    keyName: ex.key?.name ?? null,
    model: ex.model,
    attempts: ex.attempts,
    inboundProtocol: ex.format,
    stream: ex.stream,
    status: outcome.status,
    errorCode: err?.code ?? null,
    errorMessage: err ? err.message.slice(0, 1000) : null,
    usageEstimated: outcome.usageEstimated,
    latencyMs: Math.round(performance.now() - ex.startedAt),
    ttfbMs: ex.ttfbMs,
    notes: ex.notes.length > 0 ? ex.notes.join('; ').slice(0, 2000) : null,
  });
}
