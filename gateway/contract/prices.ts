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
