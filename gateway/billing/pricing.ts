import type { Prices } from '../catalogue/presets.js';
import type { Usage } from '../core/usage.js';

const PER_MILLION_TIMES_PPM = 1_000_000n * 1_000_000n;

/**
 * cost = ceil(Σ tokens_kind × price_kind / 1e6 × multiplier), in micro-USD.
 * Computed in BigInt: tokens × price × multiplier-ppm easily passes 2^53.
 */
export function costMicro(usage: Usage, prices: Prices, multiplierPpm: number): number {
  const sum =
    BigInt(usage.inputTokens) * BigInt(prices.input) +
    BigInt(usage.cacheReadTokens) * BigInt(prices.cacheRead) +
    BigInt(usage.cacheWriteTokens) * BigInt(prices.cacheWrite) +
    BigInt(usage.outputTokens) * BigInt(prices.output) +
    BigInt(usage.audioInputTokens) * BigInt(prices.audioInput ?? prices.input) +
    BigInt(usage.imageInputTokens) * BigInt(prices.imageInput ?? prices.input);
  const scaled = sum * BigInt(multiplierPpm);
  return Number((scaled + PER_MILLION_TIMES_PPM - 1n) / PER_MILLION_TIMES_PPM);
}

/**
 * The most a request can cost before we know its usage: the estimated prompt at the input price
 * plus the output ceiling at the output price. Held against the wallet and the key's quota while
 * the request is in flight.
 */
export function reservationMicro(estimatedInputTokens: number, maxOutputTokens: number, prices: Prices, multiplierPpm: number): number {
  const sum = BigInt(estimatedInputTokens) * BigInt(prices.input) + BigInt(maxOutputTokens) * BigInt(prices.output);
  const scaled = sum * BigInt(multiplierPpm);
  return Number((scaled + PER_MILLION_TIMES_PPM - 1n) / PER_MILLION_TIMES_PPM);
}
