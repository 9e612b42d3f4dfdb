import { usdDigits, usdPrice } from '../contract/money.js';

/**
 * Text as a terminal may show it: control characters (an ESC starting a colour, a cursor move or a
 * title change; carriage returns that overwrite a line) and bidirectional overrides come out as
 * visible escapes. Model ids in the usage log are whatever clients sent.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

/** A plain text table with left-aligned columns; every cell printable. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => printable(String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Epoch ms as `2026-11-27 14:05:09`, in UTC. */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** 45000 → "45s", 300000 → "5m", 90000 → "1m30s", 1500 → "1500ms": as `--timeout` takes it. */
export function duration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const s = ms / 1000;
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s < 60 || s % 60 === 0) return s < 60 ? `${s}s` : `${s / 60}m`;
  return `${Math.floor(s / 60)}m${s % 60}s`;
}

/** Price per million tokens (contract/money.ts), or `-` for a price the model does not have. */
export function perMillion(micro: number | undefined): string {
  return micro === undefined ? '-' : usdPrice(micro);
}

/** For --json output: every micro-USD field gets a USD string beside it, in exact plain digits. */
export function withUsd(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...obj };
  for (const [k, v] of Object.entries(obj)) {
    if (k.endsWith('Micro') && typeof v === 'number') out[k.replace(/Micro$/, 'Usd')] = usdDigits(v);
  }
  return out;
}
