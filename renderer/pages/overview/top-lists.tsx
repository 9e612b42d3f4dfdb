import { Link } from 'react-router';
import type { StatsBy, StatsTopRowView, StatsTopView } from '../../../gateway/contract/admin/index.js';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { usdExact } from '../../../gateway/contract/money.js';
import { groupLabel, spendText } from './metrics.js';
import { logLink } from './log-link.js';
import type { Window } from './range.js';

const TITLES: Record<'key' | 'model', string> = { key: 'Top keys', model: 'Top models' };

/**
 * The keys or models that spent most over the range, each linking to its requests of the range in
 * the usage log, with its share of the range's spend as a bar.
 */
export function TopList({
  by,
  top,
  loading,
  window: w,
}: {
  by: 'key' | 'model';
  top: StatsTopView | undefined;
  loading: boolean;
  window: Window | undefined;
}) {
  const id = `top-${by}-title`;
  const all = top?.total.costMicro ?? 0;
  const columns: DataColumn<StatsTopRowView>[] = [
    {
      id: 'group',
      header: by === 'key' ? 'Key' : 'Model',
      accessorFn: (r) => r.group ?? '',
      meta: { rowHeader: true, className: by === 'model' ? 'mono' : undefined },
      cell: ({ row }) =>
        w && row.original.group !== null ? (
          <Link
            className="link"
            to={logLink({ since: w.since, until: w.until, by: by as StatsBy, group: row.original.group })}
          >
            {row.original.group}
          </Link>
        ) : (
          <span className="muted">{groupLabel(row.original.group, by)}</span>
        ),
    },
    {
      id: 'requests',
      header: 'Requests',
      accessorFn: (r) => r.requests,
      meta: { numeric: true },
      cell: ({ row }) => row.original.requests.toLocaleString('en-US'),
    },
    {
      id: 'errors',
      header: 'Errors',
      accessorFn: (r) => r.errors,
      meta: { numeric: true },
      cell: ({ row }) =>
        row.original.errors === 0 ? <span className="muted">0</span> : row.original.errors.toLocaleString('en-US'),
    },
    {
      id: 'spend',
      header: 'Spend',
      accessorFn: (r) => r.costMicro,
      meta: { numeric: true },
      cell: ({ row }) => (
        <span className="top-spend">
          <span className="top-share" aria-hidden="true">
            <span
              style={{ width: `${all > 0 ? Math.max(2, Math.round((row.original.costMicro / all) * 100)) : 0}%` }}
            />
          </span>
          <span className="money" title={usdExact(row.original.costMicro)}>
            {spendText(row.original.costMicro)}
          </span>
        </span>
      ),
    },
  ];
  const more = top ? top.groups - top.rows.length : 0;
  return (
    <section className="panel" aria-labelledby={id}>
      <div className="panel-head">
        <h2 id={id}>
          {TITLES[by]}
          <span className="muted panel-head-note">{w ? `, ${w.label}` : ''}</span>
        </h2>
        {more > 0 ? <span className="muted">{more.toLocaleString('en-US')} more</span> : null}
      </div>
      <DataTable
        label={`${TITLES[by]} by spend${w ? `, ${w.label}` : ''}`}
        data={top?.rows}
        loading={loading}
        columns={columns}
        compact
        skeletonRows={5}
        getRowId={(r) => r.group ?? '\u0000none'}
        initialSort={[{ id: 'spend', desc: true }]}
        empty={<p className="muted panel-pad">No requests in this range.</p>}
      />
    </section>
  );
}
