/**
 * The kinds of token a model is priced by: one per billed usage bucket, declared in the bucket
 * table (contract/usage-buckets.ts). The preset loader, the user's catalogue entries, the admin
 * API's schemas, price imports, billing and the charge breakdown all follow it. Prices are integer
 * micro-USD per million tokens.
 */
import {
  PRICE_KEYS,
  REQUIRED_PRICES,
  USAGE_BUCKETS,
  type BilledBucket,
  type PriceKey,
  type Prices,
  type RequiredPriceKey,
} from './usage-buckets.js';

import type { PriceTier } from './model-fields.js';

export { PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type Prices, type RequiredPriceKey };

/** The price kind a bucket's tokens are billed by: its own where the model has it, else its fallback. */
export function priceKindOf(prices: Prices, bucket: BilledBucket): PriceKey {
  const { price, fallback } = USAGE_BUCKETS[bucket];
  return prices[price] === undefined && fallback !== null ? fallback : price;
}

/** micro-USD per million tokens for a bucket's tokens: its own price, else its fallback's (which every model has). */
export function unitPrice(prices: Prices, bucket: BilledBucket): number {
  return prices[priceKindOf(prices, bucket)] ?? 0;
}

/** The tier a request with `promptTokens` in its prompt is billed at: the highest whose threshold it passes; undefined below them all. */
export function tierFor(tiers: readonly PriceTier[] | undefined, promptTokens: number): PriceTier | undefined {
  let found: PriceTier | undefined;
  if (tiers) for (const t of tiers) if (promptTokens > t.above && (!found || t.above > found.above)) found = t;
  return found;
}

/** The prices with a tier's over them (the same object without one). */
export function tieredPrices(prices: Prices, tier: PriceTier | undefined): Prices {
  if (!tier) return prices;
  const out = { ...prices };
  for (const k of PRICE_KEYS) {
    const v = tier.prices[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** `272000` → `272K`, `1000000` → `1M`: a threshold as people read it. */
export function tokensShort(n: number): string {
  if (n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n % 1_000 === 0) return `${n / 1_000}K`;
  return n.toLocaleString('en-US');
}

/** What a tier does, in words: `above 272K: ×2 input, ×2 cache read, ×1.5 output` (a new price where the old was 0). */
export function tierWords(base: Prices, tier: PriceTier): string {
  const parts: string[] = [];
  for (const k of PRICE_KEYS) {
    const v = tier.prices[k];
    const was = base[k];
    if (v === undefined || v === was) continue;
    const name = k.replace(/[A-Z0-9]+/g, (m) => ` ${m.toLowerCase()}`);
    if (was && was > 0) {
      const ratio = Math.round((v / was) * 1000) / 1000;
      parts.push(`×${ratio} ${name}`);
    } else parts.push(`${name} $${v / 1_000_000}/M`);
  }
  return `above ${tokensShort(tier.above)}: ${parts.length ? parts.join(', ') : 'same prices'}`;
}
