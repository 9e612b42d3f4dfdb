import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { admin } from '../../lib/api.js';
import { PageHeader } from '../../components/ui.js';
import { qk, useKeys, useLines, useStatus, useWallet } from '../../lib/queries.js';
import { SkeletonBlock } from '../../components/skeleton.js';
import { LowBalanceNote } from '../../components/low-balance.js';
import { Checklist } from './checklist.js';
import { BaseUrls } from './base-urls.js';
import { RecentRequests } from './recent.js';
import { customProblem, GroupSwitch, MetricSwitch, RangeSwitch } from './controls.js';
import { METRICS, OTHER, toSeries } from './metrics.js';
import { bucketEnd, parseDay, windowOf } from './range.js';
import { useOverviewView } from './use-view.js';
import { logLink } from './log-link.js';
import { StatCards } from './stat-cards.js';
import { TopList } from './top-lists.js';
import { colourOf, UsageChart } from './usage-chart.js';
import { useRangeStats, useRangeTop } from './use-stats.js';
import './overview.css';

/** The clock the range is read at, moved on each minute so that "last 24 hours" follows the hour. */
function useMinute(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 60_000);
    return () => window.clearInterval(t);
  }, []);
  return now;
}

export function Overview() {
  const status = useStatus();
  const wallet = useWallet();
  const keys = useKeys();
  const lines = useLines();
  const navigate = useNavigate();
  // Refreshed by the event stream when a request is logged (live.ts).
  const recent = useQuery({
    queryKey: qk.recentLogs,
    queryFn: async ({ signal }) => (await admin.call('listLogs', { query: { limit: 8 }, signal })).entries,
  });

  const [view, setView] = useOverviewView();
  const now = useMinute();
  const problem = customProblem(view);
  // The window moves only when its hour or day does, so its queries keep their keys in between.
  const w = useMemo(
    () => (problem ? undefined : windowOf(view.range, now, parseDay(view.from), parseDay(view.to))),
    [problem, view.range, view.from, view.to, now],
  );
  const metric = METRICS[view.metric];
  const stats = useRangeStats(w, view.by);
  const topKeys = useRangeTop(w, 'key');
  const topModels = useRangeTop(w, 'model');
  const series = useMemo(
    () => (stats.data && w ? toSeries(stats.data, w, metric, view.by) : undefined),
    [stats.data, w, metric, view.by],
  );
  const total = topModels.data?.total;
  const empty = total !== undefined && total.requests === 0;

  return (
    <>
      <PageHeader
        title="Overview"
        subtitle={
          status.data ? (
            <>
              Gateway at <code>{status.data.url}</code>
            </>
          ) : null
        }
      >
        <RangeSwitch view={view} set={setView} problem={problem} now={now} />
      </PageHeader>
      <LowBalanceNote />
      <Checklist
        wallet={wallet.data}
        keys={keys.data}
        lines={lines.data}
        hasTraffic={recent.data ? recent.data.length > 0 : undefined}
      />
      <StatCards wallet={wallet.data} total={topModels.isPlaceholderData ? undefined : total} window={w} />
      <section className="panel" aria-labelledby="usage-title" aria-busy={stats.isFetching && !series}>
        <div className="panel-head overview-chart-head">
          <h2 id="usage-title">
            {metric.label} per {w?.bucket ?? 'day'}
            <span className="muted panel-head-note">{w ? `, ${w.label}` : ''}</span>
          </h2>
          <div className="overview-chart-controls">
            <MetricSwitch view={view} set={setView} />
            <GroupSwitch view={view} set={setView} />
          </div>
        </div>
        {!w ? (
          <p className="muted panel-pad">{problem}</p>
        ) : !series || stats.isPlaceholderData ? (
          <div className="chart-pending">
            <SkeletonBlock height="220px" label={`Loading ${metric.label.toLowerCase()} for the ${w.label}`} />
          </div>
        ) : empty || series.length === 0 ? (
          <p className="muted panel-pad chart-empty">
            No requests in the {w.label}.{' '}
            {view.range !== '30d' ? (
              <button type="button" className="link-button" onClick={() => setView({ range: '30d' })}>
                Show the last 30 days
              </button>
            ) : null}
          </p>
        ) : (
          <>
            <UsageChart
              window={w}
              series={series}
              metric={metric}
              onOpen={(i, group) =>
                void navigate(logLink({ since: w.starts[i]!, until: bucketEnd(w, i), by: view.by, group }))
              }
            />
            <ul className="chart-legend" aria-label={`${metric.label} by ${view.by}, ${w.label}`}>
              {series.map((s, i) => (
                <li key={s.label}>
                  <span className="swatch" style={{ background: colourOf(s, i) }} aria-hidden="true" />
                  {s.group === OTHER || s.group === null ? (
                    s.label
                  ) : (
                    <Link
                      className="link"
                      to={logLink({ since: w.since, until: w.until, by: view.by, group: s.group })}
                    >
                      {s.label}
                    </Link>
                  )}{' '}
                  <span className="muted money">{metric.text(s.total)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      {/* A custom span that cannot be shown has no top lists either (the range switch says why). */}
      {w ? (
        <div className="grid-2">
          <TopList by="key" top={topKeys.data} loading={topKeys.isPending || topKeys.isPlaceholderData} window={w} />
          <TopList
            by="model"
            top={topModels.data}
            loading={topModels.isPending || topModels.isPlaceholderData}
            window={w}
          />
        </div>
      ) : null}
      <div className="grid-2">
        <BaseUrls url={status.data?.url} />
        <RecentRequests entries={recent.data} />
      </div>
    </>
  );
}
