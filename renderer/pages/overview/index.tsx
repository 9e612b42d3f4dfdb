import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { admin } from '../../lib/api.js';
import { Badge, PageHeader } from '../../components/ui.js';
import { usd } from '../../../gateway/contract/money.js';
import { ago } from '../../lib/format.js';
import { qk, useKeys, useLines, useStatus, useWallet } from '../../lib/queries.js';
import { Checklist } from './checklist.js';
import { LowBalanceNote } from '../../components/low-balance.js';
import { BaseUrls } from './base-urls.js';
import { SpendChart } from './spend-chart.js';
import { localMidnight, totalsSince, useStats, type StatsBy, type Totals } from './use-stats.js';
import { Usd, UsdCost } from '../../components/money.js';
import './overview.css';

export function Overview() {
  const status = useStatus();
  const wallet = useWallet();
  const keys = useKeys();
  const lines = useLines();
  // Refreshed by the event stream when a request is logged (live.ts).
  const recent = useQuery({
    queryKey: qk.recentLogs,
    queryFn: async ({ signal }) => (await admin.call('listLogs', { query: { limit: 8 }, signal })).entries,
  });

  const [by, setBy] = useState<StatsBy>('model');
  const stats = useStats(by);
  const rows = stats.data?.rows;
  const today = rows ? totalsSince(rows, localMidnight(0)) : undefined;
  const week = rows ? totalsSince(rows, localMidnight(6)) : undefined;
  const month = rows ? totalsSince(rows, localMidnight(29)) : undefined;

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
      />
      <LowBalanceNote />
      <Checklist wallet={wallet.data} keys={keys.data} lines={lines.data} hasTraffic={(recent.data?.length ?? 0) > 0} />
      <section className="stats stats-5" aria-label="Summary">
        <Link to="/wallet" className="stat">
          <span className="stat-label">Balance</span>
          <span className="stat-value">{wallet.data ? <Usd micro={wallet.data.balanceMicro} /> : '—'}</span>
          <span className="stat-note">
            {wallet.data ? `${usd(wallet.data.heldMicro)} held for requests in flight` : ''}
          </span>
        </Link>
        {[
          ['Spent today', today],
          ['Last 7 days', week],
          ['Last 30 days', month],
        ].map(([label, t]) => (
          <Link key={label as string} to="/logs" className="stat">
            <span className="stat-label">{label as string}</span>
            <span className="stat-value">{t ? <Usd micro={(t as Totals).costMicro} /> : '—'}</span>
            <span className="stat-note">{t ? `${(t as Totals).requests.toLocaleString('en-US')} requests` : ''}</span>
          </Link>
        ))}
        <Link to="/logs" className="stat">
          <span className="stat-label">Errors, 30 days</span>
          <span className="stat-value">
            {month ? (month.requests === 0 ? '—' : `${((month.errors / month.requests) * 100).toFixed(1)}%`) : '—'}
          </span>
          <span className="stat-note">
            {month ? `${month.errors.toLocaleString('en-US')} failed of ${month.requests.toLocaleString('en-US')}` : ''}
          </span>
        </Link>
      </section>
      <section className="panel" aria-labelledby="spend-title">
        <div className="panel-head">
          <h2 id="spend-title">Spend per day, last 30 days</h2>
          <div className="segmented" role="radiogroup" aria-label="Group spend by">
            {(['model', 'key', 'line'] as const).map((b) => (
              <button
                key={b}
                type="button"
                role="radio"
                aria-checked={by === b}
                className={by === b ? 'active' : ''}
                onClick={() => setBy(b)}
              >
                by {b}
              </button>
            ))}
          </div>
        </div>
        {stats.data ? (
          <SpendChart rows={stats.data.rows} since={stats.data.since} days={30} />
        ) : (
          <div className="chart" />
        )}
      </section>
      <div className="grid-2">
        <BaseUrls url={status.data?.url} />
        <section className="panel" aria-labelledby="recent-title">
          <div className="panel-head">
            <h2 id="recent-title">Recent requests</h2>
            <Link to="/logs" className="link">
              Usage log →
            </Link>
          </div>
          {recent.data && recent.data.length > 0 ? (
            <table className="table table-compact">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Key</th>
                  <th scope="col">Model</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Cost
                  </th>
                </tr>
              </thead>
              <tbody>
                {recent.data.map((e) => (
                  <tr key={e.id}>
                    <td className="muted">{ago(e.ts)}</td>
                    <td>{e.keyName ?? '—'}</td>
                    <td className="mono">{e.model ?? '—'}</td>
                    <td>
                      <Badge tone={e.status < 400 ? 'ok' : e.status >= 500 ? 'bad' : 'warn'}>{e.status}</Badge>
                    </td>
                    <td className="num mono">
                      <UsdCost micro={e.costMicro} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted panel-pad">
              No requests yet. Point a tool at one of the base URLs and they show up here.
            </p>
          )}
        </section>
      </div>
    </>
  );
}
