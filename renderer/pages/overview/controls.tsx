import type { StatsBy } from '../../../gateway/contract/admin/index.js';
import { METRICS } from './metrics.js';
import {
  dayText,
  GROUPINGS,
  MAX_CUSTOM_DAYS,
  METRIC_IDS,
  midnight,
  parseDay,
  RANGES,
  type OverviewView,
} from './range.js';

/** A row of radio buttons (the console's segmented control). */
function Segmented<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: { id: T; text: string }[];
  onChange: (v: T) => void;
}) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button
          key={o.id}
          type="button"
          role="radio"
          aria-checked={value === o.id}
          className={value === o.id ? 'active' : ''}
          onClick={() => onChange(o.id)}
        >
          {o.text}
        </button>
      ))}
    </div>
  );
}

/** The range switch, with two date fields for a custom range (the last 7 days to start from). */
export function RangeSwitch({
  view,
  set,
  problem,
  now,
}: {
  view: OverviewView;
  set: (patch: Partial<OverviewView>) => void;
  problem: string | undefined;
  now: number;
}) {
  const today = dayText(midnight(now));
  return (
    <div className="overview-range">
      <Segmented
        label="Time range"
        value={view.range}
        options={RANGES.map((r) => ({ id: r.id, text: r.label }))}
        onChange={(range) => {
          if (range !== 'custom') return set({ range, from: '', to: '' });
          const to = parseDay(view.to) ?? midnight(now);
          set({ range, from: view.from || dayText(midnight(to, -6)), to: view.to || dayText(to) });
        }}
      />
      {view.range === 'custom' ? (
        <span className="overview-dates">
          <label>
            <span className="sr-only">From</span>
            <input
              type="date"
              aria-label="From"
              value={view.from}
              max={today}
              onChange={(e) => set({ from: e.target.value })}
            />
          </label>
          <span aria-hidden="true">–</span>
          <label>
            <span className="sr-only">To</span>
            <input
              type="date"
              aria-label="To"
              value={view.to}
              max={today}
              onChange={(e) => set({ to: e.target.value })}
            />
          </label>
          {problem ? (
            <span className="field-error" role="alert">
              {problem}
            </span>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}

/** Why a custom range cannot be shown, in words; undefined when it can. */
export function customProblem(view: OverviewView): string | undefined {
  if (view.range !== 'custom') return undefined;
  const from = parseDay(view.from);
  const to = parseDay(view.to);
  if (from === undefined || to === undefined) return 'Pick both days.';
  if (to < from) return 'The range ends before it starts.';
  if (Math.round((midnight(to, 1) - from) / 86_400_000) > MAX_CUSTOM_DAYS)
    return `A range spans at most ${MAX_CUSTOM_DAYS} days.`;
  return undefined;
}

export function MetricSwitch({ view, set }: { view: OverviewView; set: (patch: Partial<OverviewView>) => void }) {
  return (
    <Segmented
      label="Metric"
      value={view.metric}
      options={METRIC_IDS.map((m) => ({ id: m, text: METRICS[m].label }))}
      onChange={(metric) => set({ metric })}
    />
  );
}

export function GroupSwitch({ view, set }: { view: OverviewView; set: (patch: Partial<OverviewView>) => void }) {
  return (
    <label className="toolbar-field overview-by">
      <span>By</span>
      <select aria-label="Group the chart by" value={view.by} onChange={(e) => set({ by: e.target.value as StatsBy })}>
        {GROUPINGS.map((g) => (
          <option key={g} value={g}>
            {g}
          </option>
        ))}
      </select>
    </label>
  );
}
