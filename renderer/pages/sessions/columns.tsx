/** The columns of the sessions list and of a session's requests and sub-agents tables. */
import { Link } from 'react-router';
import type { SessionDetailView, SessionView } from '../../lib/api.js';
import type { DataColumn } from '../../components/data-table.js';
import { Badge } from '../../components/ui.js';
import { ago, compact, dateTime, tokens } from '../../lib/format.js';
import { usd, usdCost } from '../../../gateway/contract/money.js';
import { guardName, hitRate, requestTokens, StateBadge, toolName } from './parts.js';

const STATE_RANK: Record<SessionView['state'], number> = { paused: 2, active: 1, idle: 0 };

export const SESSION_COLUMNS: DataColumn<SessionView>[] = [
  {
    id: 'session',
    header: 'Session',
    accessorFn: (s) => s.id,
    sortingFn: 'text',
    meta: { className: 'session-id' },
    cell: ({ row: { original: s } }) => (
      <Link to={`/sessions/${encodeURIComponent(s.id)}`} className="mono" title={s.id}>
        {s.id}
      </Link>
    ),
  },
  { id: 'tool', header: 'Tool', accessorFn: (s) => toolName(s.tool), sortingFn: 'text' },
  {
    id: 'key',
    header: 'Key · project',
    accessorFn: (s) => `${s.keyName ?? ''} ${s.project ?? ''}`,
    sortingFn: 'text',
    cell: ({ row: { original: s } }) => (
      <>
        {s.keyName ?? <span className="muted">deleted key</span>}
        {s.project && s.project !== s.keyName ? <span className="muted"> · {s.project}</span> : null}
      </>
    ),
  },
  {
    id: 'when',
    header: 'First · last request',
    accessorFn: (s) => s.lastTs,
    sortDescFirst: true,
    cell: ({ row: { original: s } }) => (
      <span className="session-when">
        <span title={dateTime(s.firstTs)}>{dateTime(s.firstTs).slice(5, 16)}</span>
        <span className="muted" title={dateTime(s.lastTs)}>
          {ago(s.lastTs)}
        </span>
      </span>
    ),
  },
  {
    id: 'requests',
    header: 'Requests',
    accessorFn: (s) => s.requests,
    meta: { numeric: true, className: 'mono' },
    cell: ({ row: { original: s } }) => (
      <>
        {s.requests}
        {s.errors > 0 ? <span className="muted session-failed">{s.errors} failed</span> : null}
      </>
    ),
  },
  {
    id: 'tokens',
    header: 'Tokens',
    accessorFn: (s) => s.promptTokens + s.outputTokens,
    meta: { numeric: true, className: 'mono' },
    cell: ({ row: { original: s } }) => (
      <span title={`${s.promptTokens} prompt · ${s.outputTokens} output`}>
        {compact(s.promptTokens + s.outputTokens)}
      </span>
    ),
  },
  {
    id: 'cost',
    header: 'Cost',
    accessorFn: (s) => s.costMicro,
    meta: { numeric: true, className: 'mono' },
    cell: ({ getValue }) => usd(getValue<number>()),
  },
  {
    id: 'cache',
    header: 'Cache hits',
    accessorFn: (s) => (s.promptTokens === 0 ? -1 : s.cacheHitRate),
    meta: { numeric: true, className: 'mono' },
    cell: ({ row }) => hitRate(row.original),
  },
  {
    id: 'saved',
    header: 'Saved',
    accessorFn: (s) => s.savedMicro,
    meta: { numeric: true, className: 'mono' },
    cell: ({ getValue }) => usd(getValue<number>()),
  },
  {
    id: 'state',
    header: 'State',
    accessorFn: (s) => STATE_RANK[s.state],
    sortDescFirst: true,
    cell: ({ row: { original: s } }) => {
      const guard = guardName(s);
      return (
        <span className="session-state">
          <StateBadge s={s} />
          {guard ? (
            <span className="session-reason" title={s.pause?.reason}>
              {guard}
            </span>
          ) : null}
        </span>
      );
    },
  },
];

type SessionRequest = SessionDetailView['requests'][number];

export const REQUEST_COLUMNS: DataColumn<SessionRequest>[] = [
  {
    id: 'time',
    header: 'Time',
    accessorFn: (r) => r.ts,
    meta: { className: 'mono' },
    cell: ({ getValue }) => dateTime(getValue<number>()),
  },
  {
    id: 'agent',
    header: 'Agent',
    accessorFn: (r) => r.agent ?? '',
    sortingFn: 'text',
    meta: { className: 'mono' },
    cell: ({ row }) => row.original.agent ?? <span className="muted">main</span>,
  },
  {
    id: 'model',
    header: 'Model',
    accessorFn: (r) => r.model ?? '',
    sortingFn: 'text',
    meta: { className: 'mono' },
    cell: ({ row }) => row.original.model ?? '—',
  },
  {
    id: 'status',
    header: 'Status',
    accessorFn: (r) => r.status,
    cell: ({ row: { original: r } }) => (
      <Badge tone={r.status < 400 ? 'ok' : r.status >= 500 ? 'bad' : 'warn'}>{r.status}</Badge>
    ),
  },
  {
    id: 'tokens',
    header: 'Tokens in · out',
    accessorFn: (r) => requestTokens(r.usage).prompt,
    meta: { numeric: true, className: 'mono' },
    cell: ({ row }) => {
      const t = requestTokens(row.original.usage);
      return `${tokens(t.prompt)} · ${tokens(t.output)}`;
    },
  },
  {
    id: 'cache',
    header: 'Cache hits',
    accessorFn: (r) => (requestTokens(r.usage).prompt ? r.cacheHitRate : -1),
    meta: { numeric: true, className: 'mono' },
    cell: ({ row: { original: r } }) =>
      requestTokens(r.usage).prompt ? `${(r.cacheHitRate * 100).toFixed(0)} %` : '—',
  },
  {
    id: 'cost',
    header: 'Cost',
    accessorFn: (r) => r.costMicro,
    meta: { numeric: true, className: 'mono' },
    cell: ({ getValue }) => usdCost(getValue<number>()),
  },
  {
    id: 'cumulative',
    header: 'Cumulative',
    accessorFn: (r) => r.cumulativeMicro,
    meta: { numeric: true, className: 'mono' },
    cell: ({ getValue }) => usd(getValue<number>()),
  },
];

type SessionAgent = SessionDetailView['agents'][number];

export const AGENT_COLUMNS: DataColumn<SessionAgent>[] = [
  { id: 'agent', header: 'Agent', accessorFn: (a) => a.agent, sortingFn: 'text', meta: { className: 'mono' } },
  { id: 'requests', header: 'Requests', accessorFn: (a) => a.requests, meta: { numeric: true, className: 'mono' } },
  {
    id: 'cost',
    header: 'Cost',
    accessorFn: (a) => a.costMicro,
    meta: { numeric: true, className: 'mono' },
    cell: ({ getValue }) => usd(getValue<number>()),
  },
  {
    id: 'when',
    header: 'First · last request',
    accessorFn: (a) => a.firstTs,
    cell: ({ row: { original: a } }) => `${dateTime(a.firstTs)} · ${dateTime(a.lastTs).slice(11)}`,
  },
];
