import { formatUsd } from '../core/money.js';

/** A plain text table with left-aligned columns. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

export const usd = formatUsd;

/** 45000 → "45s", 300000 → "5m", 90000 → "1m30s", 1500 → "1500ms": as `--timeout` takes it. */
export function duration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const s = ms / 1000;
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s < 60 || s % 60 === 0) return s < 60 ? `${s}s` : `${s / 60}m`;
  return `${Math.floor(s / 60)}m${s % 60}s`;
}

/** Price per million tokens, as a person writes it: $2.50, $0.075. */
export function perMillion(micro: number | undefined): string {
  return micro === undefined ? '-' : formatUsd(micro);
}

/** For --json output: every micro-USD field gets a USD string beside it. */
export function withUsd(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...obj };
  for (const [k, v] of Object.entries(obj)) {
    if (k.endsWith('Micro') && typeof v === 'number') out[k.replace(/Micro$/, 'Usd')] = formatUsd(v).replace('$', '');
  }
  return out;
}
