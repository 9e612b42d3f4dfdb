/**
 * The console's one table: every list is a `DataTable` over TanStack Table's headless model, so
 * sorting, loading, emptiness and row links look and behave the same on every page.
 *
 * - Sortable headers are buttons inside the `<th>` (Tab and Enter or Space sort; a second press
 *   reverses, a third clears); the sorted column carries `aria-sort`.
 * - `loading` renders skeleton rows under `aria-busy`, never the empty state: a list that is being
 *   fetched is not a list with nothing in it.
 * - Numeric columns (`meta.numeric`) are right-aligned in tabular figures so amounts line up.
 * - `onRowClick` makes the whole row a pointer target; it ignores clicks on a link, button or field
 *   inside the row, and keyboard users reach the same place through the link that a column renders.
 * - `virtual` renders only the rows in view (with spacer rows above and below, so the markup stays
 *   one real table, each rendered row measured so rows of different heights place right) once
 *   there are more than `virtualFrom`, inside a scroll box of `maxHeight` (a CSS length) that takes
 *   the focus, so the keyboard scrolls it too. Sorting sorts every row, not the rendered window.
 */
import { useRef, useState, type MouseEvent, type ReactNode } from 'react';
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type Header,
  type Row,
  type RowData,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { SkeletonRows } from './skeleton.js';
import './data-table.css';

declare module '@tanstack/react-table' {
  // The module's own generic names, which an augmentation must repeat.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TData extends RowData, TValue> {
    /** Right-aligned, tabular figures (amounts, counts, latencies). */
    numeric?: boolean;
    /** Horizontal alignment when not numeric. */
    align?: 'left' | 'center' | 'right';
    /** Extra class on this column's cells (not its header). */
    className?: string;
    /** The header is read to screen readers only (a column of row menus, say). */
    srHeader?: boolean;
    /** The cell is a row header (`<th scope="row">`): what the row is about. */
    rowHeader?: boolean;
  }
}

/** A column whose value type does not matter to the table (TanStack's own recommendation). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DataColumn<T> = ColumnDef<T, any>;

export interface DataTableProps<T> {
  /** The rows; `undefined` while the first fetch is on its way. */
  data: readonly T[] | undefined;
  columns: DataColumn<T>[];
  /** What the table lists, for screen readers (the table's accessible name). */
  label: string;
  /** Forces the skeleton even when `data` is defined (a refetch after a filter change). */
  loading?: boolean;
  /** Shown instead of the table when there are no rows and nothing is loading. */
  empty?: ReactNode;
  getRowId?: (row: T) => string;
  onRowClick?: (row: T) => void;
  /** Class and data attributes for a row (a disabled line, the row's id for tests and links). */
  rowProps?: (row: T) => { className?: string } & Record<`data-${string}`, string | undefined>;
  initialSort?: SortingState;
  /** Sort state owned by the page (kept in the URL, say); otherwise the table keeps its own. */
  sorting?: SortingState;
  onSortingChange?: (next: SortingState) => void;
  compact?: boolean;
  /** False for a short fixed list whose order is its meaning (the shortcuts); true by default. */
  sortable?: boolean;
  /** Drawn with its own border and corners (on the page), or bare (inside a panel that has them). */
  framed?: boolean;
  className?: string;
  /** Rows under the body that do not sort (totals). */
  footer?: ReactNode;
  /** Skeleton rows while loading. */
  skeletonRows?: number;
  /** Render only the rows in view once there are more than `virtualFrom` (default 200). */
  virtual?: { rowHeight: number; maxHeight: string; virtualFrom?: number };
}

const INTERACTIVE = 'a, button, input, select, textarea, label, [role="menuitem"], [role="dialog"]';

function alignClass(meta: { numeric?: boolean; align?: string } | undefined): string | undefined {
  if (meta?.numeric) return 'num';
  if (meta?.align === 'right') return 'align-right';
  if (meta?.align === 'center') return 'align-center';
  return undefined;
}

/**
 * The rows while `data` is undefined: one array for every render. TanStack Table recomputes its row
 * model whenever `data` is a different array and then queues a reset of the page index, a state
 * update that renders the table again; a fresh `[]` on each render made that a loop for as long as
 * the first fetch was out (about 200 renders a second, and on a busy machine a page that never
 * answered again: no chart, no screenshot).
 */
const NO_ROWS: never[] = [];

const join = (...names: (string | false | undefined)[]): string | undefined =>
  names.filter(Boolean).join(' ') || undefined;

function SortHeader<T>({ header }: { header: Header<T, unknown> }) {
  const meta = header.column.columnDef.meta;
  const content = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext());
  const sorted = header.column.getIsSorted();
  const ariaSort = sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined;
  const cls = join(alignClass(meta), header.column.getCanSort() && 'sortable');
  if (meta?.srHeader)
    return (
      <th scope="col" className={cls}>
        <span className="sr-only">{content}</span>
      </th>
    );
  if (!header.column.getCanSort())
    return (
      <th scope="col" className={cls}>
        {content}
      </th>
    );
  return (
    <th scope="col" className={cls} aria-sort={ariaSort}>
      <button type="button" className="sort-button" onClick={header.column.getToggleSortingHandler()}>
        {content}
        <span className={`sort-mark${sorted ? ' sorted' : ''}`} aria-hidden="true">
          {sorted === 'desc' ? '▼' : '▲'}
        </span>
      </button>
    </th>
  );
}

function BodyRow<T>({
  row,
  onRowClick,
  rowProps,
  measure,
  index,
}: {
  row: Row<T>;
  onRowClick?: (row: T) => void;
  rowProps?: DataTableProps<T>['rowProps'];
  /** In virtual mode: the virtualiser measures each row it renders, so rows of two lines place right. */
  measure?: (el: HTMLTableRowElement | null) => void;
  index?: number;
}) {
  const extra = rowProps?.(row.original) ?? {};
  const onClick = onRowClick
    ? (e: MouseEvent<HTMLTableRowElement>) => {
        // A click on a control in the row is that control's; a drag that selects text is not a click.
        if ((e.target as Element).closest(INTERACTIVE)) return;
        if (window.getSelection()?.toString()) return;
        onRowClick(row.original);
      }
    : undefined;
  return (
    <tr
      {...extra}
      ref={measure}
      data-index={index}
      className={join(extra.className, onRowClick && 'row-link')}
      onClick={onClick}
    >
      {row.getVisibleCells().map((cell) => {
        const meta = cell.column.columnDef.meta;
        const cls = join(alignClass(meta), meta?.className);
        const content = flexRender(cell.column.columnDef.cell, cell.getContext());
        return meta?.rowHeader ? (
          <th key={cell.id} scope="row" className={cls}>
            {content}
          </th>
        ) : (
          <td key={cell.id} className={cls}>
            {content}
          </td>
        );
      })}
    </tr>
  );
}

export function DataTable<T>(props: DataTableProps<T>) {
  const { data, columns, label, empty, compact, className, footer, virtual, framed = true } = props;
  const [ownSorting, setOwnSorting] = useState<SortingState>(props.initialSort ?? []);
  const sorting = props.sorting ?? ownSorting;
  // TanStack Table returns functions that change on every render by design; the compiler lint
  // knows and would otherwise warn at this call.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable<T>({
    data: (data ?? NO_ROWS) as T[],
    columns,
    // The table has no pages, so there is no page index to reset when the rows change (the reset is
    // a state update, and so one more render of every table for each new set of rows).
    autoResetPageIndex: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      if (props.onSortingChange) props.onSortingChange(next);
      else setOwnSorting(next);
    },
    getRowId: props.getRowId ? (row) => props.getRowId!(row) : undefined,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    enableSorting: props.sortable !== false,
  });
  const rows = table.getRowModel().rows;
  const loading = props.loading === true || data === undefined;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualOn = virtual !== undefined && !loading && rows.length > (virtual.virtualFrom ?? 200);
  const virtualizer = useVirtualizer({
    count: virtualOn ? rows.length : 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => virtual?.rowHeight ?? 36,
    overscan: 12,
  });

  if (!loading && rows.length === 0 && empty !== undefined) return <>{empty}</>;

  const leafColumns = table.getVisibleLeafColumns();
  let body: ReactNode;
  if (loading) {
    body = (
      <SkeletonRows
        rows={props.skeletonRows ?? 5}
        columns={leafColumns.map((c) => ({ numeric: c.columnDef.meta?.numeric }))}
      />
    );
  } else if (virtualOn) {
    const items = virtualizer.getVirtualItems();
    const top = items[0]?.start ?? 0;
    const bottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
    body = (
      <>
        {top > 0 ? <tr className="spacer" aria-hidden="true" style={{ height: `${top}px` }} /> : null}
        {items.map((item) => (
          <BodyRow
            key={rows[item.index]!.id}
            row={rows[item.index]!}
            onRowClick={props.onRowClick}
            rowProps={props.rowProps}
            measure={virtualizer.measureElement}
            index={item.index}
          />
        ))}
        {bottom > 0 ? <tr className="spacer" aria-hidden="true" style={{ height: `${bottom}px` }} /> : null}
      </>
    );
  } else {
    body = rows.map((row) => (
      <BodyRow key={row.id} row={row} onRowClick={props.onRowClick} rowProps={props.rowProps} />
    ));
  }

  return (
    <div
      ref={scroller}
      className={framed ? 'table-wrap' : 'table-bare'}
      style={virtualOn ? { maxHeight: virtual.maxHeight } : undefined}
      aria-busy={loading || undefined}
      // A scroll box of its own: focusable, so Page Down, End and the arrows scroll it from the
      // keyboard to rows not rendered yet (Tab through the rows' controls follows the scroll too).
      {...(virtualOn ? { tabIndex: 0, role: 'region', 'aria-label': `${label}, scrollable` } : {})}
    >
      <table className={join('table', compact && 'table-compact', className)} aria-label={label}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <SortHeader key={header.id} header={header} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody>{body}</tbody>
        {footer && !loading ? <tfoot>{footer}</tfoot> : null}
      </table>
    </div>
  );
}
