/** Display formats of the console beside money (money is gateway/contract/money.ts: one rule everywhere). */

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
