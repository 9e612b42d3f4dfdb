import { Type, type TInteger, type TOptional } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  bucketCounts,
  LISTED_BUCKETS,
  PRICE_KEYS,
  REQUIRED_PRICES,
  USAGE_BUCKETS,
  type PriceKey,
  type RequiredPriceKey,
} from '../contract/usage-buckets.js';
import type { PriceTier } from '../contract/model-fields.js';
import { costBreakdown, type PriceSnapshot } from '../core/cost-breakdown.js';
import { promptTokens, type Usage } from '../core/usage.js';
import { cacheHitRate } from '../contract/sessions.js';
import type { LogEntry } from './ledger.js';
import type { RequestRecord } from './ledger-records.js';

/** A `requests` row as SQLite returns it, as the LogEntry the admin API shows. */
export function toEntry(r: RequestRecord): LogEntry {
  const entry: Omit<LogEntry, 'breakdown' | 'cacheHitRate'> = {
    id: r.id,
    requestId: r.request_id,
    ts: r.ts,
    keyId: r.key_id,
    keyName: r.key_name,
    model: r.model,
    servedModel: r.served_model,
    attempts: r.attempts,
    upstreamModel: r.upstream_model,
    line: r.line,
    inboundProtocol: r.inbound_protocol,
    upstreamProtocol: r.upstream_protocol,
    stream: r.stream === 1,
    status: r.status,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    usage: usageOf(r),
    usageEstimated: r.usage_estimated === 1,
    costMicro: r.cost_micro,
    unchargedMicro: r.uncharged_micro,
    latencyMs: r.latency_ms,
    ttfbMs: r.ttfb_ms,
    notes: r.notes,
    billedAt: snapshot(r.prices_json, r.multiplier_ppm),
    session: r.session,
    agent: r.agent,
    tool: r.tool,
    project: r.project,
    savedMicro: r.saved_micro,
  };
  return {
    ...entry,
    breakdown: entry.billedAt ? costBreakdown(entry.usage, entry.billedAt) : null,
    cacheHitRate: cacheHitRate({
      promptTokens: promptTokens(entry.usage),
      cacheReadTokens: entry.usage.cacheReadTokens,
    }),
  };
}

/** The row's usage, one figure per bucket, in the order a log entry lists them. */
function usageOf(r: RequestRecord): Usage {
  return bucketCounts((k) => r[USAGE_BUCKETS[k].column], LISTED_BUCKETS);
}

const Price = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** A price snapshot as prices_json holds it: a whole number of micro-USD per million tokens for every kind it names. */
const SnapshotPrices = Type.Object(
  Object.fromEntries(
    PRICE_KEYS.map((k) => [k, (REQUIRED_PRICES as readonly string[]).includes(k) ? Price : Type.Optional(Price)]),
  ) as { [K in RequiredPriceKey]: TInteger } & { [K in Exclude<PriceKey, RequiredPriceKey>]: TOptional<TInteger> },
  { additionalProperties: Price },
);

/** The price tier a row reached, kept under `tier` in prices_json. */
const SnapshotTier = Type.Object({
  above: Price,
  prices: Type.Record(Type.String(), Price),
});

/** The row's price snapshot; null for rows written before it was kept (or a column that does not read as one). */
function snapshot(pricesJson: string | null, multiplierPpm: number | null): PriceSnapshot | null {
  if (pricesJson === null || multiplierPpm === null) return null;
  let prices: unknown;
  try {
    prices = JSON.parse(pricesJson);
  } catch {
    return null;
  }
  if (typeof prices !== 'object' || prices === null) return null;
  const { tier, ...rest } = prices as Record<string, unknown>;
  if (!Value.Check(SnapshotPrices, rest)) return null;
  if (tier === undefined) return { prices: rest, multiplierPpm };
  return Value.Check(SnapshotTier, tier)
    ? { prices: rest, multiplierPpm, tier: { above: tier.above, prices: tier.prices as PriceTier['prices'] } }
    : null;
}
