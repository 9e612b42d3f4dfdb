import { costBreakdown, type PriceSnapshot } from '../core/cost-breakdown.js';
import { isObject } from '../core/json.js';
import type { Prices } from '../contract/prices.js';
import type { LogEntry } from './ledger.js';

/** A `requests` row as SQLite returns it, as the LogEntry the admin API shows. */
export function toEntry(r: Record<string, unknown>): LogEntry {
  const entry: Omit<LogEntry, 'breakdown'> = {
    id: r.id as number,
    requestId: r.request_id as string,
    ts: r.ts as number,
    keyId: r.key_id as string | null,
    keyName: r.key_name as string | null,
    model: r.model as string | null,
    servedModel: (r.served_model as string | null) ?? null,
    attempts: (r.attempts as number | null) ?? 0,
    upstreamModel: r.upstream_model as string | null,
    line: r.line as string | null,
    inboundProtocol: r.inbound_protocol as string,
    upstreamProtocol: r.upstream_protocol as string | null,
    stream: r.stream === 1,
    status: r.status as number,
    errorCode: r.error_code as string | null,
    errorMessage: r.error_message as string | null,
    usage: {
      inputTokens: r.input_tokens as number,
      outputTokens: r.output_tokens as number,
      cacheReadTokens: r.cache_read_tokens as number,
      cacheWriteTokens: r.cache_write_tokens as number,
      cacheWrite1hTokens: (r.cache_write_1h_tokens as number | null) ?? 0,
      reasoningTokens: r.reasoning_tokens as number,
      audioInputTokens: r.audio_input_tokens as number,
      imageInputTokens: r.image_input_tokens as number,
    },
    usageEstimated: r.usage_estimated === 1,
    costMicro: r.cost_micro as number,
    unchargedMicro: (r.uncharged_micro as number | null) ?? 0,
    latencyMs: r.latency_ms as number,
    ttfbMs: r.ttfb_ms as number | null,
    notes: (r.notes as string | null) ?? null,
    billedAt: snapshot(r.prices_json, r.multiplier_ppm),
  };
  return { ...entry, breakdown: entry.billedAt ? costBreakdown(entry.usage, entry.billedAt) : null };
}

/** The row's price snapshot; null for rows written before it was kept (or a column that does not read as one). */
function snapshot(pricesJson: unknown, multiplierPpm: unknown): PriceSnapshot | null {
  if (typeof pricesJson !== 'string' || typeof multiplierPpm !== 'number') return null;
  let prices: unknown;
  try {
    prices = JSON.parse(pricesJson);
  } catch {
    return null;
  }
  if (!isObject(prices) || !Object.values(prices).every((v) => Number.isSafeInteger(v) && (v as number) >= 0))
    return null;
  return { prices: prices as unknown as Prices, multiplierPpm };
}
