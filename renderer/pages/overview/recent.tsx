import { Link } from 'react-router';
import type { LogEntry } from '../../../gateway/contract/admin/index.js';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { UsdCost } from '../../components/money.js';
import { Badge } from '../../components/ui.js';
import { ago } from '../../lib/format.js';

const COLUMNS: DataColumn<LogEntry>[] = [
  {
    id: 'when',
    header: 'When',
    accessorFn: (e) => e.ts,
    cell: ({ row }) => <span className="muted">{ago(row.original.ts)}</span>,
  },
  { id: 'key', header: 'Key', accessorFn: (e) => e.keyName ?? '', cell: ({ row }) => row.original.keyName ?? '—' },
  {
    id: 'model',
    header: 'Model',
    accessorFn: (e) => e.model ?? '',
    meta: { className: 'mono' },
    cell: ({ row }) => row.original.model ?? '—',
  },
  {
    id: 'status',
    header: 'Status',
    accessorFn: (e) => e.status,
    cell: ({ row }) => {
      const s = row.original.status;
      return <Badge tone={s < 400 ? 'ok' : s >= 500 ? 'bad' : 'warn'}>{s}</Badge>;
    },
  },
  {
    id: 'cost',
    header: 'Cost',
    accessorFn: (e) => e.costMicro,
    meta: { numeric: true, className: 'mono' },
    cell: ({ row }) => <UsdCost micro={row.original.costMicro} />,
  },
];

/** The last few requests, newest first (kept current by the event stream, live.ts). */
export function RecentRequests({ entries }: { entries: LogEntry[] | undefined }) {
  return (
    <section className="panel" aria-labelledby="recent-title">
      <div className="panel-head">
        <h2 id="recent-title">Recent requests</h2>
        <Link to="/logs" className="link">
          Usage log →
        </Link>
      </div>
      <DataTable
        label="Recent requests"
        data={entries}
        columns={COLUMNS}
        compact
        skeletonRows={5}
        getRowId={(e) => String(e.id)}
        initialSort={[{ id: 'when', desc: true }]}
        empty={
          <p className="muted panel-pad">
            No requests yet. Point a tool at one of the base URLs and they show up here.
          </p>
        }
      />
    </section>
  );
}
