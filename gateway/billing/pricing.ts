import { BILLED_BUCKETS, USAGE_BUCKETS, type BilledBucket, type PriceKey } from '../contract/usage-buckets.js';
import type { Prices } from '../contract/prices.js';
import type { Usage } from '../core/usage.js';

const PER_MILLION_TIMES_PPM = 1_000_000n * 1_000_000n;

/**
 * cost = ceil(Σ tokens_kind × price_kind / 1e6 × multiplier), in micro-USD, over the billed buckets
 * of the bucket table, each at its own price or its fallback's. Exact: tokens × price × multiplier-ppm
 * easily passes 2^53, so what may is computed in BigInt. The usage must be whole
 * numbers (relay/usage.ts checks what upstreams report before it gets here).
 */
export function costMicro(usage: Usage, prices: Prices, multiplierPpm: number): number {
  return scaled(termsSum(usage, prices, BILLED), multiplierPpm);
}

/** A billed bucket with the price kind it is billed by and the one it falls back to (its own when none). */
interface Term {
  bucket: BilledBucket;
  price: PriceKey;
  fallback: PriceKey;
}

const term = (k: BilledBucket): Term => ({
  bucket: k,
  price: USAGE_BUCKETS[k].price,
  fallback: USAGE_BUCKETS[k].fallback ?? USAGE_BUCKETS[k].price,
});

const BILLED: readonly Term[] = BILLED_BUCKETS.map(term);

/**
 * The buckets a token of the prompt estimate may land in: input of any kind and cache writes of
 * any lifetime. Cache reads are left out: they replay a prompt written before, at a discount every
 * vendor gives, so they never set the dearest price.
 */
const RESERVED_PROMPT: readonly Term[] = BILLED_BUCKETS.filter((k) =>
  ['input', 'cacheWrite'].includes(USAGE_BUCKETS[k].family),
).map(term);

/**
 * Σ tokens × unit price over `terms`, exact. Runs on every settlement: terms whose product and
 * running sum stay within 2^53 are added as numbers (exact there), the rest in BigInt.
 */
function termsSum(usage: Usage, prices: Prices, terms: readonly Term[]): bigint {
  let small = 0;
  let big = 0n;
  for (const t of terms) {
    const tokens = usage[t.bucket];
    if (tokens === 0) continue;
    const price = prices[t.price] ?? prices[t.fallback] ?? 0;
    const product = tokens * price;
    if (product <= Number.MAX_SAFE_INTEGER - small) small += product;
    else big += BigInt(tokens) * BigInt(price);
  }
  return BigInt(small) + big;
}

/**
 * The dearest price a prompt token can have: plain input, a cache write of either lifetime, audio
 * or image input. The reservation prices the whole prompt estimate at it, so that a prompt written
 * to the cache cannot cost more than was held.
 */
export function dearestInputPrice(prices: Prices): number {
  let dearest = 0;
  for (const t of RESERVED_PROMPT) dearest = Math.max(dearest, prices[t.price] ?? prices[t.fallback] ?? 0);
  return dearest;
}

/**
 * The most a request can cost before we know its usage: the estimated prompt at the dearest
 * prompt-token price plus the output ceiling at the output price. Held against the wallet and the
 * key's quota while the request is in flight, and the most it is ever charged.
 */
export function reservationMicro(
  estimatedInputTokens: number,
  maxOutputTokens: number,
  prices: Prices,
  multiplierPpm: number,
): number {
  const sum =
    BigInt(estimatedInputTokens) * BigInt(dearestInputPrice(prices)) + BigInt(maxOutputTokens) * BigInt(prices.output);
  return scaled(sum, multiplierPpm);
}

/**
 * How many output tokens `budgetMicro` pays for on top of the prompt estimate (rounded down);
 * Infinity when output is free.
 */
export function affordableOutputTokens(
  budgetMicro: number,
  estimatedInputTokens: number,
  prices: Prices,
  multiplierPpm: number,
): number {
  if (prices.output === 0) return Infinity;
  const left =
    BigInt(Math.max(0, budgetMicro)) * PER_MILLION_TIMES_PPM -
    BigInt(estimatedInputTokens) * BigInt(dearestInputPrice(prices)) * BigInt(multiplierPpm);
  if (left <= 0n) return 0;
  const tokens = left / (BigInt(prices.output) * BigInt(multiplierPpm));
  return tokens > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tokens);
}

function scaled(sum: bigint, multiplierPpm: number): number {
  return Number((sum * BigInt(multiplierPpm) + PER_MILLION_TIMES_PPM - 1n) / PER_MILLION_TIMES_PPM);
}

/**
 * What reading from the cache saved: the cache-read tokens at the plain input price, less what
 * they cost at the cache-read price, × the multiplier; rounded down, and never below 0 (a price
 * list where a cache read costs more than input saves nothing).
 */
export function savedMicro(usage: Usage, prices: Prices, multiplierPpm: number): number {
  const perToken = prices.input - (prices.cacheRead ?? prices.input);
  if (perToken <= 0 || usage.cacheReadTokens <= 0) return 0;
  return Number((BigInt(usage.cacheReadTokens) * BigInt(perToken) * BigInt(multiplierPpm)) / PER_MILLION_TIMES_PPM);
}
