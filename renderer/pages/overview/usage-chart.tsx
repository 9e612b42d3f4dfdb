import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { bucketTotal, OTHER, type Metric, type Series } from './metrics.js';
import { bucketEnd, type Window } from './range.js';
import { bucketText } from './bucket-text.js';

/** Colours that read on both themes; the sixth is "other". */
export const COLOURS = ['#4f7cff', '#22a06b', '#e0962c', '#c2456d', '#8a63d2', '#8b95a5'];
const HEIGHT = 220;

export const colourOf = (s: Series, i: number): string =>
  s.group === OTHER ? COLOURS[5]! : (COLOURS[i] ?? COLOURS[5]!);

interface Hover {
  idx: number;
  /** Where the cursor is, in CSS pixels from the chart box's top left. */
  x: number;
  y: number;
  /** The box's width, to keep the tooltip inside it. */
  width: number;
}

/** The x axis's tick steps in seconds: whole days for a chart of days, whole hours for one of hours. */
const DAY_STEPS = [1, 2, 3, 7, 14, 28].map((n) => n * 86_400);
const HOUR_STEPS = [1, 2, 3, 6, 12, 24].map((n) => n * 3_600);

/** Re-renders when the theme changes, so the axes take the new theme's colours. */
function useThemeName(): string | undefined {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme);
  useEffect(() => {
    const o = new MutationObserver(() => setTheme(document.documentElement.dataset.theme));
    o.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => o.disconnect();
  }, []);
  return theme;
}

/**
 * Bars per bucket of the window (uPlot, canvas), stacked by group where the metric adds up. Hovering
 * a bar shows its bucket with each group's figure; clicking it (or Enter, with the arrow keys moving
 * along the buckets) opens the usage log on that bucket, narrowed to the group clicked.
 */
export function UsageChart({
  window: w,
  series,
  metric,
  onOpen,
}: {
  window: Window;
  series: Series[];
  metric: Metric;
  onOpen: (bucket: number, group: string | null | undefined) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const theme = useThemeName();
  const open = useRef(onOpen);
  useEffect(() => {
    open.current = onOpen;
  }, [onOpen]);

  // What each drawn series holds per bucket: stacked sums for metrics that add up, else the one rate.
  const drawn = useMemo(() => {
    const n = w.starts.length;
    if (!metric.stacks) {
      const rate = Array.from({ length: n }, (_, i) => metric.of(bucketTotal(series, i)) ?? null);
      return [{ label: 'all requests', colour: COLOURS[0]!, group: undefined, values: rate }];
    }
    const out: { label: string; colour: string; group: string | null | undefined; values: (number | null)[] }[] = [];
    const running = new Array<number>(n).fill(0);
    series.forEach((s, si) => {
      const values = s.buckets.map((b, i) => {
        running[i]! += metric.of(b) ?? 0;
        return running[i]!;
      });
      out.push({ label: s.label, colour: colourOf(s, si), group: s.group === OTHER ? undefined : s.group, values });
    });
    // A bucket with nothing is no bar (null), not a sliver on the axis.
    const totals = out.length > 0 ? out[out.length - 1]!.values : [];
    for (const d of out) d.values = d.values.map((v, i) => (totals[i] === 0 ? null : v));
    return out;
  }, [series, metric, w]);

  useEffect(() => {
    const el = box.current;
    if (!el || drawn.length === 0) return;
    const styles = getComputedStyle(document.documentElement);
    const axis = styles.getPropertyValue('--text-3').trim() || '#888';
    const grid = styles.getPropertyValue('--border').trim() || '#ddd';
    const size = w.bucket === 'hour' ? 3_600 : 86_400;
    const xs = w.starts.map((s) => s / 1000);
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: HEIGHT,
        legend: { show: false },
        // No cross-hair: the tooltip names the bucket; dragging does not zoom (a click opens the log).
        cursor: {
          show: true,
          x: false,
          y: false,
          points: { show: false },
          drag: { x: false, y: false, setScale: false },
        },
        scales: {
          // Half a bucket of room at each end, so the first and last bars are whole.
          x: { time: true, range: (_u, min, max) => [min - size / 2, max + size / 2] },
          // Counts and money start at zero: a bar's height is its amount, never a difference.
          y: {
            range: (_u, _min, max) => (metric.stacks ? [0, max > 0 ? max * 1.1 : 1] : [0, Math.max(1, max * 1.1)]),
          },
        },
        axes: [
          {
            stroke: axis,
            grid: { show: false },
            ticks: { show: false },
            // Whole buckets only: uPlot's own steps would put two ticks (and labels) in one day.
            incrs: w.bucket === 'day' ? DAY_STEPS : HOUR_STEPS,
            values: (_u, ticks) => ticks.map((t) => bucketText(t * 1000, w.bucket, 'tick')),
          },
          {
            stroke: axis,
            grid: { stroke: grid, width: 1 },
            ticks: { show: false },
            size: 76,
            values: (_u, ticks) => ticks.map((t) => metric.tick(t)),
          },
        ],
        // Drawn last first, so the tallest (the running total) is at the back.
        series: [
          {},
          ...drawn
            .map((d) => ({
              label: d.label,
              fill: d.colour,
              stroke: d.colour,
              paths: uPlot.paths.bars!({ size: [0.72, 48] }),
              points: { show: false },
            }))
            .reverse(),
        ],
        hooks: {
          setCursor: [
            (u) => {
              const idx = u.cursor.idx;
              if (idx === null || idx === undefined || u.cursor.left === undefined || u.cursor.left < 0) {
                setHover(null);
                return;
              }
              const over = u.over.getBoundingClientRect();
              const outer = el.getBoundingClientRect();
              setHover({
                idx,
                x: over.left - outer.left + (u.cursor.left ?? 0),
                y: over.top - outer.top + (u.cursor.top ?? 0),
                width: outer.width,
              });
            },
          ],
        },
      },
      [xs, ...drawn.map((d) => d.values).reverse()],
      el,
    );
    plotRef.current = plot;
    // The group under the pointer: the stacked segment whose span holds the pointer's height.
    const onClick = (): void => {
      const idx = plot.cursor.idx;
      if (idx === null || idx === undefined) return;
      const y = plot.posToVal(plot.cursor.top ?? 0, 'y');
      let below = 0;
      let group: string | null | undefined;
      for (const d of drawn) {
        const top = d.values[idx];
        if (top === null || top === undefined) continue;
        if (y >= below && y <= top) {
          group = d.group;
          break;
        }
        below = top;
      }
      open.current(idx, group);
    };
    plot.over.addEventListener('click', onClick);
    plot.over.style.cursor = 'pointer';
    const onResize = (): void => plot.setSize({ width: el.clientWidth, height: HEIGHT });
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      plot.over.removeEventListener('click', onClick);
      plot.destroy();
      plotRef.current = null;
      setHover(null);
    };
  }, [drawn, w, metric, theme]);

  /** Arrow keys walk the buckets (showing each one's tooltip); Enter opens the one shown. */
  const onKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    const plot = plotRef.current;
    if (!plot) return;
    const n = w.starts.length;
    const at = hover?.idx ?? -1;
    let next: number | undefined;
    if (e.key === 'ArrowRight') next = Math.min(n - 1, at + 1);
    else if (e.key === 'ArrowLeft') next = at < 0 ? n - 1 : Math.max(0, at - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = n - 1;
    else if (e.key === 'Enter' && at >= 0) {
      e.preventDefault();
      onOpen(at, undefined);
      return;
    }
    if (next === undefined) return;
    e.preventDefault();
    plot.setCursor({ left: plot.valToPos(w.starts[next]! / 1000, 'x'), top: plot.over.clientHeight / 2 });
  };

  if (drawn.length === 0) return null;
  const total = hover ? bucketTotal(series, hover.idx) : undefined;
  const flip = hover ? hover.x > hover.width - 260 : false;
  return (
    <div className="usage-chart">
      <div
        ref={box}
        className="chart"
        role="application"
        tabIndex={0}
        aria-roledescription="chart"
        aria-label={`${metric.title}, ${w.label}, per ${w.bucket}. Arrow keys move between ${w.bucket}s; Enter opens that ${w.bucket} in the usage log.`}
        onKeyDown={onKey}
        onMouseLeave={() => setHover(null)}
        onBlur={() => setHover(null)}
      />
      {hover && total ? (
        <div
          className="chart-tip"
          role="status"
          style={{ left: flip ? undefined : hover.x + 14, right: flip ? hover.width - hover.x + 14 : undefined }}
        >
          <div className="chart-tip-head">
            {bucketText(w.starts[hover.idx]!, w.bucket, 'long', bucketEnd(w, hover.idx))}
          </div>
          <table>
            <tbody>
              {series
                .map((s, i) => ({ s, i, b: s.buckets[hover.idx]! }))
                .filter(({ b }) => b.requests > 0)
                .map(({ s, i, b }) => (
                  <tr key={s.label}>
                    <td>
                      <span className="swatch" style={{ background: colourOf(s, i) }} aria-hidden="true" />
                      {s.label}
                    </td>
                    <td className="num">{metric.text(b)}</td>
                  </tr>
                ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{total.requests === 0 ? 'No requests' : 'All'}</th>
                <td className="num">{total.requests === 0 ? '' : metric.text(total)}</td>
              </tr>
            </tfoot>
          </table>
          {total.requests > 0 ? <div className="chart-tip-foot">Click to open these requests in the log</div> : null}
        </div>
      ) : null}
    </div>
  );
}
