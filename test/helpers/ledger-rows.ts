/**
 * Rows for tests that write into a ledger directly. `ledgerRow`: a settled request, an ordinary 200 on
 * key `a` through the `openai` line, 10 tokens in and 5 out for 7 µ$, each field replaceable by
 * `over`; request ids are unique within a test process. `pendingRow`: an admitted request's pending
 * row on the same key, holding 100 µ$.
 */
import { emptyUsage } from '../../gateway/core/usage.js';
import type { PendingRow, RequestRow } from '../../gateway/store/ledger.js';

let n = 0;

export function ledgerRow(over: Partial<RequestRow> = {}): RequestRow {
  return {
    requestId: `req_${++n}`,
    ts: Date.now(),
    keyId: 'key_a',
    keyName: 'a',
    model: 'gpt-4o-mini',
    servedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    line: 'openai',
    attempts: 1,
    inboundProtocol: 'openai-chat',
    upstreamProtocol: 'openai-chat',
    stream: false,
    status: 200,
    errorCode: null,
    errorMessage: null,
    usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5 },
    usageEstimated: false,
    costMicro: 7,
    unchargedMicro: 0,
    latencyMs: 3,
    ttfbMs: 2,
    notes: null,
    billedAt: null,
    session: null,
    agent: null,
    tool: null,
    project: null,
    savedMicro: 0,
    ...over,
  };
}

export function pendingRow(requestId: string, over: Partial<PendingRow> = {}): PendingRow {
  return {
    requestId,
    ts: Date.now(),
    keyId: 'key_a',
    keyName: 'a',
    model: 'gpt-4o-mini',
    inboundProtocol: 'openai-chat',
    stream: false,
    heldMicro: 100,
    ...over,
  };
}
