/**
 * What the Overview can chart, and the stats rows cut into chart series. A metric reads the sums of
 * a bucket (or of a group, or of the whole range); spend, requests, tokens and errors add up, so
 * their bars stack by group; the cache-hit rate is a ratio, drawn for all requests together, with
 * each group's own rate in the tooltip.
 */
import type { StatsBy, StatsRowView, StatsTotalView } from '../../../gateway/contract/admin/index.js';
import { usd, usdExact, usdPrice } from '../../../gateway/contract/money.js';
import { compact } from '../../lib/format.js';
import { bucketIndex, type MetricId, type Window } from './range.js';

export type Sums = StatsTotalView;

export const zero = (): Sums => ({
  requests: 0,
  errors: 0,
  costMicro: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

export function add(into: Sums, s: Sums): void {
  into.requests += s.requests;
  into.errors += s.errors;
  into.costMicro += s.costMicro;
  into.inputTokens += s.inputTokens;
  into.outputTokens += s.outputTokens;
  into.cacheReadTokens += s.cacheReadTokens;
  into.cacheWriteTokens += s.cacheWriteTokens;
}

/** Every input token, cached or not: input here is uncached (usage is normalised that way, docs/sessions.md). */
export const inputAll = (s: Sums): number => s.inputTokens + s.cacheReadTokens + s.cacheWriteTokens;

/** Cache reads over all input tokens; undefined when there was no input. */
export function cacheRate(s: Sums): number | undefined {
  const all = inputAll(s);
  return all === 0 ? undefined : s.cacheReadTokens / all;
}

export const pct = (r: number | undefined): string =>
  r === undefined ? '—' : `${(r * 100).toFixed(r > 0 && r < 0.001 ? 2 : 1)}%`;

/**
 * A bucket's or a group's spend: to the cent, as totals are, unless it is under a cent and more than
 * nothing, where rounding would hide it ($0.00): then exact ($0.000172).
 */
export function spendText(micro: number): string {
  return micro > 0 && micro < 10_000 ? usdExact(micro) : usd(micro);
}

export interface Metric {
  id: MetricId;
  /** The switch's word. */
  label: string;
  /** What the chart's heading calls it: "Spend", "Cache-hit rate". */
  title: string;
  /** The value drawn: dollars, a count, or a ratio from 0 to 1. */
  of(s: Sums): number | undefined;
  /** Whether groups add up (stacked bars), or each is a rate of its own. */
  stacks: boolean;
  /** A value as a tooltip or legend shows it. */
  text(s: Sums): string;
  /** An axis tick. */
  tick(v: number): string;
}

export const METRICS: Record<MetricId, Metric> = {
  spend: {
    id: 'spend',
    label: 'Spend',
    title: 'Spend',
    of: (s) => s.costMicro / 1e6,
    stacks: true,
    text: (s) => spendText(s.costMicro),
    // A scale, not a total: ticks keep the digits they have, so small amounts do not all read $0.00.
    tick: (v) => usdPrice(Math.round(v * 1e6)),
  },
  requests: {
    id: 'requests',
    label: 'Requests',
    title: 'Requests',
    of: (s) => s.requests,
    stacks: true,
    text: (s) => s.requests.toLocaleString('en-US'),
    tick: (v) => compact(Math.round(v)),
  },
  tokens: {
    id: 'tokens',
    label: 'Tokens',
    title: 'Tokens (input, cached and output)',
    of: (s) => inputAll(s) + s.outputTokens,
    stacks: true,
    text: (s) => (inputAll(s) + s.outputTokens).toLocaleString('en-US'),
    tick: (v) => compact(Math.round(v)),
  },
  errors: {
    id: 'errors',
    label: 'Errors',
    title: 'Failed requests',
    of: (s) => s.errors,
    stacks: true,
    text: (s) => `${s.errors.toLocaleString('en-US')} of ${s.requests.toLocaleString('en-US')}`,
    tick: (v) => compact(Math.round(v)),
  },
  cache: {
    id: 'cache',
    label: 'Cache hits',
    title: 'Cache-hit rate (cache reads over all input tokens)',
    of: cacheRate,
    stacks: false,
    text: (s) => pct(cacheRate(s)),
    tick: (v) => `${Math.round(v * 100)}%`,
  },
};

/** Words for a group's value: the log's rows without one (refused before a key was known, older rows). */
export function groupLabel(group: string | null, by: StatsBy): string {
  if (group !== null) return group;
  return by === 'key' || by === 'model' || by === 'line' ? '(refused before one was known)' : `(no ${by})`;
}

/** Series beyond the five largest are summed as one. */
export const TOP_SERIES = 5;
export const OTHER = '\u0000other';

export interface Series {
  /** The group's value (null: rows without one; OTHER: the rest). */
  group: string | null;
  label: string;
  /** Sums per bucket of the window. */
  buckets: Sums[];
  total: Sums;
}

/**
 * The five largest groups of the window by the metric (by spend for the cache-hit rate, which
 * ranks nothing), the rest as "other", each with its sums per bucket.
 */
export function toSeries(rows: readonly StatsRowView[], w: Window, metric: Metric, by: StatsBy): Series[] {
  const n = w.starts.length;
  const totals = new Map<string | null, Sums>();
  for (const r of rows) {
    const t = totals.get(r.group) ?? zero();
    add(t, r);
    totals.set(r.group, t);
  }
  const rank = metric.stacks ? (s: Sums) => metric.of(s) ?? 0 : (s: Sums) => s.costMicro;
  const ordered = [...totals.entries()].sort(
    (a, b) => rank(b[1]) - rank(a[1]) || b[1].requests - a[1].requests || (a[0] ?? '').localeCompare(b[0] ?? ''),
  );
  const top = ordered.slice(0, ordered.length > TOP_SERIES + 1 ? TOP_SERIES : TOP_SERIES + 1);
  const series = new Map<string | null, Series>(
    top.map(([g]) => [
      g,
      { group: g, label: groupLabel(g, by), buckets: Array.from({ length: n }, zero), total: zero() },
    ]),
  );
  const other: Series = { group: OTHER, label: 'other', buckets: Array.from({ length: n }, zero), total: zero() };
  for (const r of rows) {
    const i = bucketIndex(w, r.start);
    if (i < 0 || i >= n) continue;
    const s = series.get(r.group) ?? other;
    add(s.buckets[i]!, r);
    add(s.total, r);
  }
  const out = [...series.values()];
  if (other.total.requests > 0) out.push(other);
  return out;
}

/** The sums of every series in bucket `i`. */
export function bucketTotal(series: readonly Series[], i: number): Sums {
  const t = zero();
  for (const s of series) add(t, s.buckets[i]!);
  return t;
}
