import { useMemo, useRef, useState } from 'react';
import { FORMAT_NAMES, LISTED_FORMATS } from '../../../gateway/contract/formats.js';
import { admin, type ModelView } from '../../lib/api.js';
import { CopyButton } from '../../components/copy.js';
import { DataTable, type DataColumn } from '../../components/data-table.js';
import { ItemDialog, RemoveConfirm, useCrud } from '../../components/crud.js';
import { RowMenu } from '../../components/menu.js';
import { useShortcuts } from '../../components/shortcuts.js';
import { Badge, Empty, NewButton, PageHeader } from '../../components/ui.js';
import { useAction } from '../../components/use-action.js';
import { usdPrice } from '../../../gateway/contract/money.js';
import { compact } from '../../lib/format.js';
import { qk, useModels } from '../../lib/queries.js';
import { AddModelDialog, EditModelForm } from './model-form.js';
import './models.css';

const PRICE_COLUMNS = [
  ['input', 'Input'],
  ['output', 'Output'],
  ['cacheRead', 'Cache read'],
  ['cacheWrite', 'Cache write'],
] as const;

function Access({ m }: { m: ModelView }) {
  return (
    <span className="access">
      {LISTED_FORMATS.map((p) => {
        const { name, short } = FORMAT_NAMES[p];
        const a = m.access[p];
        const tone = a === 'native' ? 'ok' : a === 'translated' ? 'info' : 'muted';
        return (
          <span key={p} className={`access-cell access-${tone}`} title={`${name}: ${a}`}>
            {short}
            <span className="sr-only">
              {' '}
              {name} {a}
            </span>
          </span>
        );
      })}
    </span>
  );
}

export function Models() {
  const models = useModels();
  const [query, setQuery] = useState('');
  const [vendor, setVendor] = useState('');
  const [servedOnly, setServedOnly] = useState(false);
  const search = useRef<HTMLInputElement>(null);
  useShortcuts(useMemo(() => ({ '/': () => search.current?.focus() }), []));
  const reset = useAction(
    (id: string) => admin.call('resetModel', { params: { id } }),
    [qk.models],
    ({ model }) => `Model "${model.id}" is back at its preset prices.`,
  );
  // Lines, groups and aliases that name the model lose it too (the confirmation says so).
  const crud = useCrud({
    call: (m: ModelView) => admin.call('removeModel', { params: { id: m.id }, query: { force: true } }),
    invalidates: [qk.models, qk.lines, qk.groups],
    done: ({ model }) => `Model "${model.id}" removed.`,
  });
  const { edit, askRemove } = crud;

  const columns = useMemo<DataColumn<ModelView>[]>(
    () => [
      {
        id: 'model',
        header: 'Model',
        accessorFn: (m) => m.id,
        sortingFn: 'text',
        cell: ({ row: { original: m } }) => (
          <>
            <div className="model-id">
              <code>{m.id}</code>
              {m.origin === 'custom' ? (
                <Badge tone="info">custom</Badge>
              ) : m.presetPrices ? (
                <Badge tone="warn">overridden</Badge>
              ) : null}
              <CopyButton value={m.id} label="Copy" what={`model id ${m.id}`} />
            </div>
            <div className="model-name" title={m.displayName}>
              {m.displayName}
            </div>
          </>
        ),
      },
      { id: 'vendor', header: 'Vendor', accessorFn: (m) => m.vendor, sortingFn: 'text' },
      ...PRICE_COLUMNS.map(([key, header]): DataColumn<ModelView> => ({
        id: key,
        header,
        accessorFn: (m) => m.prices[key],
        cell: ({ getValue }) => usdPrice(getValue<number>()),
        sortDescFirst: true,
        meta: { numeric: true, className: 'mono' },
      })),
      {
        id: 'context',
        header: 'Context',
        accessorFn: (m) => m.contextWindow,
        cell: ({ getValue }) => compact(getValue<number>()),
        sortDescFirst: true,
        meta: { numeric: true, className: 'mono' },
      },
      {
        id: 'lines',
        header: 'Lines',
        accessorFn: (m) => m.lines.length,
        cell: ({ row: { original: m } }) =>
          m.lines.length > 0 ? m.lines.join(', ') : <Badge tone="muted">none</Badge>,
        sortDescFirst: true,
        meta: { className: 'model-lines' },
      },
      {
        id: 'access',
        header: 'Client access',
        // Natively served first, then translated, then unserved.
        accessorFn: (m) =>
          LISTED_FORMATS.reduce((n, p) => n + (m.access[p] === 'native' ? 2 : m.access[p] === 'translated' ? 1 : 0), 0),
        cell: ({ row: { original: m } }) => <Access m={m} />,
        sortDescFirst: true,
      },
      {
        id: 'actions',
        header: 'Actions',
        enableSorting: false,
        meta: { srHeader: true, className: 'actions' },
        cell: ({ row: { original: m } }) => (
          <RowMenu
            label={`Actions for model ${m.id}`}
            items={[
              { label: 'Edit prices…', onSelect: () => edit(m) },
              ...(m.presetPrices ? [{ label: 'Reset to preset prices', onSelect: () => reset.mutate(m.id) }] : []),
              ...(m.origin === 'custom' ? [{ label: 'Remove…', danger: true, onSelect: () => askRemove(m) }] : []),
            ]}
          />
        ),
      },
    ],
    [reset, edit, askRemove],
  );

  const vendors = useMemo(() => [...new Set(models.data?.map((m) => m.vendor))].sort(), [models.data]);
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (models.data ?? []).filter(
      (m) =>
        (!q || m.id.toLowerCase().includes(q) || m.displayName.toLowerCase().includes(q)) &&
        (!vendor || m.vendor === vendor) &&
        (!servedOnly || m.lines.length > 0),
    );
  }, [models.data, query, vendor, servedOnly]);

  return (
    <>
      <PageHeader
        title="Models"
        subtitle="The catalogue: prices in USD per million tokens. Any client protocol reaches any model a line serves."
      >
        <NewButton label="Add model" onNew={() => crud.setAdding(true)} />
      </PageHeader>
      <div className="toolbar" role="search">
        <label className="toolbar-field toolbar-grow">
          <span>Search</span>
          <input
            ref={search}
            type="search"
            placeholder="id or name  ( / )"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
        <label className="toolbar-field">
          <span>Vendor</span>
          <select value={vendor} onChange={(e) => setVendor(e.target.value)}>
            <option value="">all</option>
            {vendors.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
        <label className="toolbar-check">
          <input type="checkbox" checked={servedOnly} onChange={(e) => setServedOnly(e.target.checked)} /> served by a
          line
        </label>
        <span className="toolbar-spacer" />
        <span className="legend">
          <span className="access-cell access-ok">native</span>
          <span className="access-cell access-info">translated</span>
          <span className="access-cell access-muted">no line</span>
        </span>
      </div>
      <DataTable
        label="Model catalogue"
        className="models-table"
        data={models.data && shown}
        columns={columns}
        getRowId={(m) => m.id}
        rowProps={(m) => ({ 'data-model': m.id })}
        empty={<Empty title="No model matches" />}
        skeletonRows={8}
        // An imported price file can bring hundreds of models: past 200 only the rows in view render.
        // A row is two lines, about 56 px; an estimate at or above it keeps End landing on the last row
        // (rows measured smaller shrink the scroll height, never push the end further away).
        virtual={{ rowHeight: 57, maxHeight: 'calc(100vh - 200px)' }}
      />
      <AddModelDialog open={crud.adding} onOpenChange={crud.setAdding} />
      <ItemDialog item={crud.editing} title={(m) => `Edit model "${m.id}"`} onClose={crud.closeEdit}>
        {(m) => <EditModelForm key={m.id} m={m} onClose={crud.closeEdit} />}
      </ItemDialog>
      <RemoveConfirm crud={crud} title={(m) => `Remove model "${m.id}"?`} confirmLabel="Remove model">
        {(m) => (
          <>
            Requests for it are refused from now on
            {m.lines.length > 0
              ? `, and it is taken off ${m.lines.length === 1 ? 'line' : 'lines'} ${m.lines.join(', ')}`
              : ''}
            . Its log rows and their costs stay.
          </>
        )}
      </RemoveConfirm>
    </>
  );
}
