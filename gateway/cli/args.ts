import { InvalidArgumentError } from 'commander';
import { parseUsd } from '../contract/money.js';

/** Option parsers shared by the commands. */
export function int(label: string, min = 0, max?: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || (max !== undefined && n > max))
      throw new InvalidArgumentError(
        max === undefined
          ? `${label} must be an integer of at least ${min}.`
          : `${label} must be an integer from ${min} to ${max}.`,
      );
    return n;
  };
}

/** A price multiplier as the admin API takes it: a plain decimal with at most 6 decimals, e.g. 1.2. */
export function multiplier(v: string): string {
  if (!/^\d+(\.\d{1,6})?$/.test(v.trim()))
    throw new InvalidArgumentError(`--multiplier takes a number with at most 6 decimals, e.g. 1 or 1.25.`);
  return v.trim();
}

/** An amount in USD, 0 or more (contract/money.ts reads it). */
export function amount(v: string): number {
  try {
    return parseUsd(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

export function list(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration as people write it: `1500ms`, `30s`, `2m`, `1.5h`. A bare number is refused, so that
 * seconds and milliseconds are never mixed up. Returns milliseconds: from 1 ms to 24 h.
 */
export function duration(label: string) {
  return (v: string): number => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(v.trim());
    if (!m) throw new InvalidArgumentError(`${label} takes a duration with a unit: 1500ms, 30s, 2m or 1h.`);
    const ms = Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
    if (ms < 1 || ms > 86_400_000) throw new InvalidArgumentError(`${label} must be between 1ms and 24h.`);
    return ms;
  };
}
