import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { StatsRowView } from '../../lib/api.js';
import { usdPrice } from '../../../gateway/contract/money.js';
import { date } from '../../lib/format.js';
import { DAY } from './use-stats.js';
import { Usd } from '../../components/money.js';

/** Colours that read on both themes; the sixth is "other". */
const COLOURS = ['#4f7cff', '#22a06b', '#e0962c', '#c2456d', '#8a63d2', '#8b95a5'];
const TOP = 5;

interface Series {
  label: string;
  /** Dollars per day, for the chart's scale. */
  values: number[];
  /** The exact total in micro-USD, summed in integers (the legend shows it). */
  totalMicro: number;
}

/** Spend per day for the five largest groups and the rest, in dollars. */
function toSeries(rows: readonly StatsRowView[], since: number, days: number): { x: number[]; series: Series[] } {
  const x = Array.from({ length: days }, (_, i) => (since + i * DAY) / 1000);
  const total = new Map<string, number>();
  for (const r of rows) total.set(r.group ?? '(none)', (total.get(r.group ?? '(none)') ?? 0) + r.costMicro);
  const top = [...total.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([g]) => g);
  const series: Series[] = top.map((label) => ({ label, values: new Array<number>(days).fill(0), totalMicro: 0 }));
  const other: Series = { label: 'other', values: new Array<number>(days).fill(0), totalMicro: 0 };
  for (const r of rows) {
    const day = Math.round((r.start - since) / DAY);
    if (day < 0 || day >= days) continue;
    const s = series.find((x) => x.label === (r.group ?? '(none)')) ?? other;
    s.values[day]! += r.costMicro / 1e6;
    s.totalMicro += r.costMicro;
  }
  if (other.values.some((v) => v > 0)) series.push(other);
  return { x, series };
}

/** Stacked daily spend (uPlot, canvas). A table of the same figures follows for screen readers. */
export function SpendChart({ rows, since, days }: { rows: readonly StatsRowView[]; since: number; days: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const { x, series } = useMemo(() => toSeries(rows, since, days), [rows, since, days]);

  useEffect(() => {
    const el = ref.current;
    if (!el || series.length === 0) return;
    // Stacked: each series is drawn at the running sum of itself and those before it.
    const stacked: number[][] = [];
    series.forEach((s, i) => stacked.push(s.values.map((v, d) => v + (i > 0 ? stacked[i - 1]![d]! : 0))));
    const styles = getComputedStyle(document.documentElement);
    const axis = styles.getPropertyValue('--text-3').trim() || '#888';
    const grid = styles.getPropertyValue('--border').trim() || '#ddd';
    const bars = uPlot.paths.bars!({ size: [0.7, 40] });
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: 200,
        legend: { show: false },
        cursor: { show: true, points: { show: false } },
        scales: {
          // Half a day of room at each end, so the first and last bars are whole.
          x: { time: true, range: (_u, min, max) => [min - DAY / 2000, max + DAY / 2000] },
          // Money axes start at zero: a bar's height is its amount, never a difference.
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          {
            stroke: axis,
            grid: { stroke: grid, width: 1 },
            ticks: { show: false },
            values: (_u, ticks) => ticks.map((t) => date(t * 1000).slice(5)),
          },
          {
            stroke: axis,
            grid: { stroke: grid, width: 1 },
            ticks: { show: false },
            size: 76,
            // A scale, not a total: its ticks keep the digits they have, so a day of small requests
            // does not read $0.00 on every line.
            values: (_u, ticks) => ticks.map((t) => usdPrice(Math.round(t * 1e6))),
          },
        ],
        // Drawn last first, so the tallest (the total) is at the back.
        series: [
          {},
          ...series
            .map((s, i) => ({
              label: s.label,
              fill: COLOURS[i] ?? COLOURS[5],
              stroke: COLOURS[i] ?? COLOURS[5],
              paths: bars,
              points: { show: false },
            }))
            .reverse(),
        ],
      },
      // A day with nothing is no bar (null), not a sliver on the axis.
      [
        x,
        ...stacked
          .slice()
          .reverse()
          .map((s) => s.map((v) => (v === 0 ? null : v))),
      ],
      el,
    );
    const onResize = (): void => plot.setSize({ width: el.clientWidth, height: 200 });
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      plot.destroy();
    };
  }, [x, series]);

  if (series.length === 0) return <p className="muted panel-pad">No spend in the last {days} days.</p>;
  return (
    <>
      <div
        ref={ref}
        className="chart"
        role="img"
        aria-label={`Spend per day over the last ${days} days, by ${series.map((s) => s.label).join(', ')}`}
      />
      <ul className="chart-legend">
        {series.map((s, i) => (
          <li key={s.label}>
            <span className="swatch" style={{ background: COLOURS[i] ?? COLOURS[5] }} aria-hidden="true" />
            {s.label}{' '}
            <span className="muted">
              <Usd micro={s.totalMicro} />
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
