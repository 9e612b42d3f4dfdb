/**
 * Money is integer micro-USD (1 USD = 1,000,000) everywhere. Decimal strings from people and data
 * files are parsed exactly, never through floating point; amounts as text, and parsing what people
 * type, are contract/money.ts. Here: multipliers, and prices as data files write them.
 */
import { parseUsd } from '../contract/money.js';

/**
 * Multipliers already parsed: admission reads the key's group's on every request, and a config
 * holds a handful. Bounded, in case texts come from somewhere that makes many.
 */
const multipliers = new Map<string, number>();
const MULTIPLIERS_KEPT = 1_000;

/** Multipliers ("1", "0.8", "1.25") are kept as integer parts per million. */
export function parseMultiplier(text: string | number): number {
  const key = String(text);
  const known = multipliers.get(key);
  if (known !== undefined) return known;
  const ppm = parseUsd(key);
  if (ppm <= 0) throw new RangeError('a multiplier must be greater than 0');
  if (multipliers.size >= MULTIPLIERS_KEPT) multipliers.clear();
  multipliers.set(key, ppm);
  return ppm;
}

const SCIENTIFIC = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * A non-negative decimal written out in text ("0.000003", "3e-06", "1.5E-7") times 10^shift, as a
 * whole number, rounded up when it is not whole (`exact` then says so). Exact: BigInt on the
 * digits, never floating point. Null for anything else (negatives, NaN, "0x1", empty text).
 */
export function scaleDecimal(text: string, shift: number): { value: bigint; exact: boolean } | null {
  const m = SCIENTIFIC.exec(text.trim());
  if (!m) return null;
  const frac = m[2] ?? '';
  const exponent = Number(m[3] ?? '0') - frac.length + shift;
  // 10^400 and beyond is no price: refuse it rather than build a huge number.
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 400) return null;
  const digits = BigInt(m[1]! + frac);
  if (exponent >= 0) return { value: digits * 10n ** BigInt(exponent), exact: true };
  const divisor = 10n ** BigInt(-exponent);
  const whole = digits / divisor;
  const exact = digits % divisor === 0n;
  return { value: exact ? whole : whole + 1n, exact };
}

/**
 * A price in USD per token, as price lists write it (OpenRouter's "0.000003", LiteLLM's 3e-06),
 * in micro-USD per million tokens: × 10^12. A price finer than that (below $0.000001 per million
 * tokens) is rounded up to it, never down. Throws a RangeError on anything but a non-negative number.
 */
export function perTokenToMicroPerMillion(text: string): { micro: number; exact: boolean } {
  const scaled = scaleDecimal(text, 12);
  if (!scaled) throw new RangeError(`"${text}" is not a price in USD per token (a non-negative number)`);
  if (scaled.value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`"${text}" is too large a price`);
  return { micro: Number(scaled.value), exact: scaled.exact };
}

/**
 * The decimal text of a number read from JSON: the shortest text that reads back as the same
 * double, which is how JSON writers (Python's json, JavaScript's JSON.stringify) print it, so the
 * digits are those of the file. `perTokenToMicroPerMillion(numberText(3e-6))` is exact.
 */
export function numberText(n: number): string | null {
  return Number.isFinite(n) && n >= 0 ? String(n) : null;
}
