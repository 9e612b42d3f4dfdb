import type { Billing } from '../billing/billing.js';
import type { GatewayError } from '../core/errors.js';
import type { Usage } from '../core/usage.js';
import type { LedgerWriteError } from '../store/ledger.js';
import type { Exchange, Outcome } from './exchange.js';

/**
 * Settles an exchange once: its ledger row (billing/billing.ts writes it and gives back what the
 * admission held). Later calls, and requests that are not model calls, do nothing. Resolves null,
 * or why the row could not be written.
 */
export function settle(
  billing: Pick<Billing, 'settle'>,
  ex: Exchange,
  outcome: Outcome,
): Promise<LedgerWriteError | null> {
  if (ex.settled || !ex.billable) return Promise.resolve(null);
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
    session: ex.attribution?.id ?? null,
    agent: ex.attribution?.agent ?? null,
    tool: ex.attribution?.tool ?? null,
    project: ex.attribution?.project ?? null,
  });
}

/**
 * The one settlement of a request that failed before any answer reached the client, wherever it
 * failed (its body, admission, every line, a bug: gateway/http/; the client leaving: forward.ts).
 * The row carries the error's status and code. It bills nothing unless `prompt` is given: the
 * prompt Tollgate counted, when an upstream had already read it (upstreams bill a prompt they
 * have read), so the row marks its usage as estimated. A request settled already keeps its row.
 */
export function settleFailure(
  billing: Pick<Billing, 'settle'>,
  ex: Exchange,
  err: GatewayError,
  prompt: Usage | null = null,
): Promise<LedgerWriteError | null> {
  return settle(billing, ex, { status: err.status, usage: prompt, usageEstimated: prompt !== null, error: err });
}
