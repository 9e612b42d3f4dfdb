/** Display formats. Amounts arrive as integer micro-USD and are only ever divided for display. */

/** $12.34 for whole cents, more digits only when the amount has them (a request can cost $0.000043). */
export function usd(micro: number): string {
  const sign = micro < 0 ? '−' : '';
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / 1_000_000);
  const frac = String(abs % 1_000_000).padStart(6, '0');
  const trimmed = frac.replace(/0+$/, '');
  const digits = trimmed.length <= 2 ? frac.slice(0, 2) : trimmed;
  return `${sign}$${whole.toLocaleString('en-US')}.${digits}`;
}

/** A price in micro-USD per million tokens, as dollars per million. */
export function perMillion(micro: number | undefined): string {
  if (micro === undefined) return '—';
  return usd(micro);
}

/** Parses a dollar amount typed by a person ("10", "2.5", "$0.75") into micro-USD; undefined if it is not one. */
export function parseUsd(text: string): number | undefined {
  const t = text.trim().replace(/^\$/, '').replaceAll(',', '');
  if (!/^\d+(\.\d{0,6})?$/.test(t)) return undefined;
  const [whole, frac = ''] = t.split('.');
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
}

export function tokens(n: number): string {
  return n.toLocaleString('en-US');
}

export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** Local time as 2026-11-22 14:03:07: sortable, and what a log reader expects. */
export function dateTime(ts: number | string): string {
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function date(ts: number | string): string {
  return dateTime(ts).slice(0, 10);
}

export function ago(ts: number | string, now = Date.now()): string {
  const s = Math.round((now - new Date(ts).getTime()) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export function ms(n: number | null): string {
  if (n === null) return '—';
  return n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}
