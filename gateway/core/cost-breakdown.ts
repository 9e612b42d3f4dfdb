/**
 * How a ledger row's cost came about: each kind of token times the unit price the row was billed
 * at, summed, times the group's multiplier, rounded up to the micro-USD. Read from the price
 * snapshot the row keeps (store/ledger.ts), so it explains the row for ever, whatever the
 * catalogue says today. The sum follows billing/pricing.ts's costMicro term by term;
 * test/core/cost-breakdown.test.ts checks the two agree.
 */
import { BILLED_BUCKETS, USAGE_BUCKETS, type BilledBucket } from '../contract/usage-buckets.js';
import { priceKindOf, tieredPrices, tierWords, unitPrice, type PriceKey, type Prices } from '../contract/prices.js';
import type { PriceTier } from '../contract/model-fields.js';
import type { Usage } from './usage.js';

/** The unit prices and the multiplier one row was billed at. */
export interface PriceSnapshot {
  /** micro-USD per million tokens, per price kind. */
  prices: Prices;
  /** The key's group multiplier, in parts per million (1.5 → 1_500_000). */
  multiplierPpm: number;
  /** The price tier the request's prompt reached, whose prices replace `prices` of the kinds it names; absent below every tier. */
  tier?: PriceTier;
}

export interface CostTerm {
  /** The usage bucket (`inputTokens`, …) and the price kind it was billed by (`input`, …). */
  tokens: number;
  usage: BilledBucket;
  price: PriceKey;
  /** micro-USD per million tokens. */
  priceMicroPerMillion: number;
  /** tokens × price, exact, in USD as decimal text. */
  usd: string;
}

export interface CostBreakdown extends PriceSnapshot {
  /** One term per bucket that has tokens. */
  terms: CostTerm[];
  /** Σ terms, exact, USD decimal text. */
  subtotalUsd: string;
  /** The multiplier as decimal text ("1", "1.5"). */
  multiplier: string;
  /** ceil(subtotal × multiplier) in micro-USD: what the row was charged. */
  costMicro: number;
  /** The sum written out, e.g. `1200 input × $3/M + 350 output × $15/M = $0.00885 × 1.5 = $0.013275`. */
  formula: string;
}

const MILLION = 1_000_000n;

/** `n / 10^scale` as exact decimal text without trailing zeros: decimal(1_500_000n, 6) → "1.5". */
export function decimal(n: bigint, scale: number): string {
  const negative = n < 0n;
  const digits = (negative ? -n : n).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export function costBreakdown(usage: Usage, snapshot: PriceSnapshot): CostBreakdown {
  const { multiplierPpm, tier } = snapshot;
  const prices = tieredPrices(snapshot.prices, tier);
  const terms: CostTerm[] = [];
  const words: string[] = [];
  // Sums are kept in micro-USD × 10^6 (price per million × tokens), so every step is exact.
  let sum = 0n;
  // Terms in bill order, each bucket at the price kind it was billed by (its fallback where the
  // snapshot has no price of its own kind).
  for (const k of BILLED_BUCKETS) {
    const tokens = usage[k];
    if (!tokens) continue;
    const price = unitPrice(prices, k);
    const product = BigInt(tokens) * BigInt(price);
    sum += product;
    terms.push({
      tokens,
      usage: k,
      price: priceKindOf(prices, k),
      priceMicroPerMillion: price,
      usd: decimal(product, 12),
    });
    words.push(`${tokens} ${USAGE_BUCKETS[k].term} × $${decimal(BigInt(price), 6)}/M`);
  }
  const scaled = sum * BigInt(multiplierPpm);
  const unit = MILLION * MILLION;
  const costMicro = Number((scaled + unit - 1n) / unit);
  const subtotalUsd = decimal(sum, 12);
  const multiplier = decimal(BigInt(multiplierPpm), 6);
  let formula = words.length === 0 ? 'no tokens billed' : `${words.join(' + ')} = $${subtotalUsd}`;
  // The tier first, so the unit prices that follow read as what they are ("above 272K: ×2 input").
  if (tier) formula = `${tierWords(snapshot.prices, tier)}; ${formula}`;
  if (words.length > 0 && multiplierPpm !== 1_000_000) formula += ` × ${multiplier} = $${decimal(scaled, 18)}`;
  const exact = scaled % unit === 0n;
  if (!exact) formula += ` → $${decimal(BigInt(costMicro), 6)} (rounded up to the micro-USD)`;
  return {
    prices: snapshot.prices,
    multiplierPpm,
    ...(tier ? { tier } : {}),
    terms,
    subtotalUsd,
    multiplier,
    costMicro,
    formula,
  };
}
