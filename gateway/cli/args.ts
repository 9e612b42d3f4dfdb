import { InvalidArgumentError } from 'commander';
import { parseUsd } from '../core/money.js';

/** Option parsers shared by the commands. */
export function int(label: string, min = 0) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${label} must be an integer of at least ${min}.`);
    return n;
  };
}

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

