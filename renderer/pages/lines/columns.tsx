/** The columns of the Lines table (pages/lines/index.tsx keeps the state they act on). */
import { Link } from 'react-router';
import type { LineUsageView } from '../../../gateway/contract/admin/index.js';
import type { LineTestView, LineView } from '../../lib/api.js';
import type { DataColumn } from '../../components/data-table.js';
import { RowMenu } from '../../components/menu.js';
import { Switch } from '../../components/ui.js';
import { ms } from '../../lib/format.js';
import { DayFigures, Health } from './health.js';

/** The models a line serves, on its row: the first few, then how many more (all of them on hover). */
function LineModels({ models }: { models: string[] }) {
  const shown = models.slice(0, 3);
  return (
    <span className="line-models" title={models.join(', ')}>
      {shown.map((m) => (
        <code key={m}>{m}</code>
      ))}
      {models.length > shown.length ? <span className="muted">+{models.length - shown.length} more</span> : null}
    </span>
  );
}

const SOURCE: Record<LineView['apiKeySource'], string> = { keychain: 'keychain', env: 'env', none: 'no key' };

/** Sorts the worst first when descending: resting, retrying, failing, then healthy, untested, off. */
function healthRank(l: LineView, test: LineTestView | undefined): number {
  if (!l.enabled) return 0;
  if (l.health.state === 'open') return 6;
  if (l.health.state === 'half-open' || l.health.waitMs > 0) return 5;
  if (test && !test.ok) return 4;
  return l.health.failures > 0 ? 3 : 2;
}

export type LineTest = LineTestView | 'running';

export function lineColumns(a: {
  tests: Record<string, LineTest>;
  usageOf: Map<string, LineUsageView>;
  /** When the lines were read (the query's time), for the health countdowns. */
  at: number;
  onToggle(name: string, enabled: boolean): void;
  onTest(name: string): void;
  onEdit(l: LineView): void;
  onRemove(l: LineView): void;
}): DataColumn<LineView>[] {
  const done = (name: string): LineTestView | undefined => {
    const t = a.tests[name];
    return t && t !== 'running' ? t : undefined;
  };
  return [
    {
      id: 'on',
      header: 'On',
      accessorFn: (l) => (l.enabled ? 1 : 0),
      sortDescFirst: true,
      cell: ({ row: { original: l } }) => (
        <Switch checked={l.enabled} label={`Line ${l.name} enabled`} onChange={(on) => a.onToggle(l.name, on)} />
      ),
    },
    {
      id: 'name',
      header: 'Name',
      accessorFn: (l) => l.name,
      sortingFn: 'text',
      cell: ({ row: { original: l } }) => (
        <div className="line-name">
          <strong>{l.name}</strong>
          <span className="mono muted truncate" title={`${l.protocol} at ${l.baseUrl}`}>
            {l.protocol} · {l.baseUrl}
          </span>
        </div>
      ),
    },
    {
      id: 'models',
      header: 'Models',
      accessorFn: (l) => l.models.length,
      sortDescFirst: true,
      cell: ({ row }) => <LineModels models={row.original.models} />,
    },
    {
      id: 'key',
      header: 'Key',
      accessorFn: (l) => (l.apiKeySource === 'env' ? `$${l.apiKeyEnv}` : SOURCE[l.apiKeySource]),
      sortingFn: 'text',
      meta: { className: 'muted' },
    },
    {
      id: 'priority',
      header: 'Priority',
      accessorFn: (l) => l.priority,
      meta: { numeric: true, className: 'mono' },
    },
    { id: 'weight', header: 'Weight', accessorFn: (l) => l.weight, meta: { numeric: true, className: 'mono' } },
    {
      id: 'health',
      header: 'Health',
      accessorFn: (l) => healthRank(l, done(l.name)),
      sortDescFirst: true,
      cell: ({ row: { original: l } }) => (
        <>
          <Health l={l} usage={a.usageOf.get(l.name)} test={done(l.name)} at={a.at} />
          <Link
            className="link line-errors-link"
            to={`/logs?line=${encodeURIComponent(l.name)}&status=error`}
            aria-label={`Recent errors of line ${l.name}`}
          >
            errors
          </Link>
        </>
      ),
    },
    {
      id: 'day',
      header: 'Last 24 h',
      accessorFn: (l) => a.usageOf.get(l.name)?.requests ?? 0,
      sortDescFirst: true,
      cell: ({ row }) => <DayFigures usage={a.usageOf.get(row.original.name)} />,
    },
    {
      id: 'test',
      header: 'Test',
      enableSorting: false,
      meta: { className: 'test-cell' },
      cell: ({ row: { original: l } }) => {
        const t = a.tests[l.name];
        return (
          <>
            <button
              type="button"
              className="button button-small"
              disabled={t === 'running'}
              onClick={() => a.onTest(l.name)}
            >
              {t === 'running' ? 'Testing…' : 'Test'}
            </button>
            {t && t !== 'running' ? (
              <span className={t.ok ? 'test-result ok' : 'test-result bad'} role="status" title={t.message}>
                {t.ok ? `ok · ${ms(t.latencyMs)}` : `failed${t.status ? ` · ${t.status}` : ''}`}
              </span>
            ) : null}
          </>
        );
      },
    },
    {
      id: 'actions',
      header: 'Actions',
      enableSorting: false,
      meta: { srHeader: true, className: 'actions' },
      cell: ({ row: { original: l } }) => (
        <RowMenu
          label={`Actions for line ${l.name}`}
          items={[
            { label: 'Edit…', onSelect: () => a.onEdit(l) },
            { label: l.enabled ? 'Disable' : 'Enable', onSelect: () => a.onToggle(l.name, !l.enabled) },
            { label: 'Remove…', danger: true, onSelect: () => a.onRemove(l) },
          ]}
        />
      ),
    },
  ];
}
