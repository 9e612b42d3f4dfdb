/**
 * Money is integer micro-USD (1 USD = 1,000,000) everywhere. Decimal strings from people and
 * data files are parsed exactly, never through floating point.
 */
export const MICRO_PER_USD = 1_000_000;

const DECIMAL = /^(\d+)(?:\.(\d{1,6}))?$/;

/** "12.5" → 12_500_000. Throws on negatives, more than 6 decimals, or anything not a plain number. */
export function parseUsd(text: string): number {
  const m = DECIMAL.exec(text.trim().replace(/^\$/, ''));
  if (!m) throw new RangeError(`"${text}" is not an amount in USD (a plain number with at most 6 decimals, e.g. 10 or 0.25)`);
  const whole = Number(m[1]);
  const frac = Number((m[2] ?? '').padEnd(6, '0'));
  const micro = whole * MICRO_PER_USD + frac;
  if (!Number.isSafeInteger(micro)) throw new RangeError(`"${text}" is too large`);
  return micro;
}

/** 12_500_000 → "$12.50"; 123 → "$0.000123". At least two decimals, at most six, no trailing zeros beyond two. */
export function formatUsd(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / MICRO_PER_USD);
  let frac = String(abs % MICRO_PER_USD).padStart(6, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${sign}$${whole}.${frac}`;
}

/** Multipliers ("1", "0.8", "1.25") are kept as integer parts per million. */
export function parseMultiplier(text: string | number): number {
  const ppm = parseUsd(String(text));
  if (ppm <= 0) throw new RangeError('a multiplier must be greater than 0');
  return ppm;
}
