import type { Prices } from '../contract/prices.js';
import type { Usage } from '../core/usage.js';

const PER_MILLION_TIMES_PPM = 1_000_000n * 1_000_000n;

/**
 * cost = ceil(Σ tokens_kind × price_kind / 1e6 × multiplier), in micro-USD.
 * Computed in BigInt: tokens × price × multiplier-ppm easily passes 2^53. The usage must be whole
 * numbers (relay/usage.ts checks what upstreams report before it gets here).
 */
export function costMicro(usage: Usage, prices: Prices, multiplierPpm: number): number {
  const sum =
    BigInt(usage.inputTokens) * BigInt(prices.input) +
    BigInt(usage.cacheReadTokens) * BigInt(prices.cacheRead) +
    BigInt(usage.cacheWriteTokens) * BigInt(prices.cacheWrite) +
    BigInt(usage.cacheWrite1hTokens) * BigInt(prices.cacheWrite1h ?? prices.cacheWrite) +
    BigInt(usage.outputTokens) * BigInt(prices.output) +
    BigInt(usage.audioInputTokens) * BigInt(prices.audioInput ?? prices.input) +
    BigInt(usage.imageInputTokens) * BigInt(prices.imageInput ?? prices.input);
  return scaled(sum, multiplierPpm);
}

/**
 * The dearest price a prompt token can have: plain input, a cache write of either lifetime, audio
 * or image input. The reservation prices the whole prompt estimate at it, so that a prompt written
 * to the cache cannot cost more than was held.
 */
export function dearestInputPrice(prices: Prices): number {
  return Math.max(
    prices.input,
    prices.cacheWrite,
    prices.cacheWrite1h ?? 0,
    prices.audioInput ?? 0,
    prices.imageInput ?? 0,
  );
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
