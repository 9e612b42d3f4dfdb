/**
 * The Overview's time range, metric and grouping, held in the page's URL (#/?range=7d&metric=errors&by=tool)
 * so that a view can be linked, and so that coming back from the usage log finds it as it was.
 * Pure functions of the URL and the clock; the page's hook that reads and writes the URL is use-view.ts.
 */
import type { StatsBy } from '../../../gateway/contract/admin/index.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export type RangeId = '24h' | '7d' | '30d' | 'custom';
export const RANGES: { id: RangeId; label: string; long: string }[] = [
  { id: '24h', label: '24 h', long: 'last 24 hours' },
  { id: '7d', label: '7 d', long: 'last 7 days' },
  { id: '30d', label: '30 d', long: 'last 30 days' },
  { id: 'custom', label: 'Custom', long: 'custom range' },
];

export type MetricId = 'spend' | 'requests' | 'tokens' | 'errors' | 'cache';
export const METRIC_IDS: MetricId[] = ['spend', 'requests', 'tokens', 'errors', 'cache'];

/** The groupings the chart offers, each a column of the log with a filter of the same name. */
export const GROUPINGS: StatsBy[] = ['model', 'key', 'line', 'tool', 'project', 'session'];

/** Days a custom range may span (the gateway allows ten years; a year of daily bars is already thin). */
export const MAX_CUSTOM_DAYS = 400;
/** Up to this many days, a custom range is drawn by the hour. */
const HOURLY_DAYS = 3;

/** What the chart and the totals ask the gateway for: a range, its buckets and their size. */
export interface Window {
  since: number;
  until: number;
  bucket: 'hour' | 'day';
  /** Where each bucket starts (local midnights for days, so a DST day is 23 or 25 hours). */
  starts: number[];
  /** Words for the range: "last 7 days", "2026-11-01 – 2026-11-07". */
  label: string;
}

/** Local midnight `days` days after the day of `t` (negative: before). */
export function midnight(t: number, days = 0): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + days).getTime();
}

/** A date field's value (YYYY-MM-DD, local) as the local midnight it names; undefined if not one. */
export function parseDay(text: string | null): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text ?? '');
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return d.getMonth() === Number(m[2]) - 1 && d.getDate() === Number(m[3]) ? d.getTime() : undefined;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A local midnight as a date field's value. */
export function dayText(t: number): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function days(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => midnight(first, i));
}

function hours(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i * HOUR);
}

/**
 * The window of a range at `now`. 24 h is the last 24 whole hours up to the one under way; 7 d and
 * 30 d are whole local days ending today; a custom range runs from the start of `from` to the end of
 * `to` (both local days), hourly when it spans three days or fewer. A custom range that is not valid
 * (missing, reversed, too long) gives undefined, and the page says why.
 */
export function windowOf(range: RangeId, now: number, from?: number, to?: number): Window | undefined {
  if (range === '24h') {
    const first = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
    return { since: first, until: first + 24 * HOUR, bucket: 'hour', starts: hours(first, 24), label: 'last 24 hours' };
  }
  if (range === '7d' || range === '30d') {
    const n = range === '7d' ? 7 : 30;
    const first = midnight(now, -(n - 1));
    return { since: first, until: midnight(now, 1), bucket: 'day', starts: days(first, n), label: `last ${n} days` };
  }
  if (from === undefined || to === undefined || to < from) return undefined;
  const end = midnight(to, 1);
  const count = Math.round((end - from) / DAY);
  if (count > MAX_CUSTOM_DAYS) return undefined;
  const label = from === to ? dayText(from) : `${dayText(from)} – ${dayText(to)}`;
  if (count <= HOURLY_DAYS) {
    return { since: from, until: end, bucket: 'hour', starts: hours(from, Math.round((end - from) / HOUR)), label };
  }
  return { since: from, until: end, bucket: 'day', starts: days(from, count), label };
}

/** Which bucket of the window a stats row's start falls in (the gateway's days start at one fixed offset). */
export function bucketIndex(w: Window, start: number): number {
  // Binary search for the last bucket starting at or before `start`; days get an hour's grace, as
  // the gateway cuts every day at the browser's offset of today, an hour off across a DST change.
  const t = w.bucket === 'day' ? start + HOUR : start;
  let lo = 0;
  let hi = w.starts.length - 1;
  if (t < w.starts[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (w.starts[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The end of bucket `i` of a window. */
export function bucketEnd(w: Window, i: number): number {
  return w.starts[i + 1] ?? w.until;
}

export interface OverviewView {
  range: RangeId;
  metric: MetricId;
  by: StatsBy;
  from: string;
  to: string;
}

/** The view the URL holds, with the defaults for what it leaves out: the last 7 days' spend by model. */
export function viewOf(params: URLSearchParams): OverviewView {
  const range = RANGES.find((r) => r.id === params.get('range'))?.id ?? '7d';
  const metric = METRIC_IDS.find((m) => m === params.get('metric')) ?? 'spend';
  const by = GROUPINGS.find((g) => g === params.get('by')) ?? 'model';
  return { range, metric, by, from: params.get('from') ?? '', to: params.get('to') ?? '' };
}
