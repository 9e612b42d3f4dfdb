import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { csvUrl, type LogEntry } from '../../lib/api.js';
import { useShortcuts } from '../../components/shortcuts.js';
import { Badge, Empty, ErrorNote, PageHeader } from '../../components/ui.js';
import { dateTime, ms, tokens } from '../../lib/format.js';
import { LogDetails } from './details.js';
import { LogFilters, useLogFilter } from './filters.js';
import { LogSummary } from './summary.js';
import './logs.css';
import { useLogRows } from './use-log-rows.js';
import { UsdCost } from '../../components/money.js';
import { shortSession, toolLabel } from './who.js';
import { Skeleton } from '../../components/skeleton.js';
import './logs-page.css';
import { TimeHeader, useLogOrder } from './order.js';

const ROW_HEIGHT = 32;
/*
 * The log keeps this grid of divs rather than components/data-table.tsx: it pages in from the
 * server as the person scrolls and takes live rows (use-log-rows.ts), a keyboard cursor moves
 * through it with the drawer following, and its column set changes with its own width. Its order
 * is the ledger's, which the server pages both ways: Time sorts newest or oldest first by asking
 * the server (order.tsx); sorting the rows loaded so far by any other column would misstate a log
 * of a million rows, so the other headers do not sort.
 */
/**
 * The grid's columns, each with its cell class (logs.css sizes them). Protocol, sub-agent and cache
 * tokens live in the details drawer; input and output share one Tokens column; below about 1440 px
 * (logs.css, a container query) Project and Line fold away too, so the log never scrolls sideways
 * at 1280 px. Both stay filters, and the drawer shows them.
 */
const COLUMNS = [
  ['Time', 'col-time'],
  ['Key', 'col-key'],
  ['Tool', 'col-tool'],
  ['Project', 'col-project'],
  ['Session', 'col-session'],
  ['Model', 'col-model'],
  ['Line', 'col-line'],
  ['Status', 'col-status'],
  ['Tokens', 'col-tokens num'],
  ['Cost', 'col-cost num'],
  ['Latency', 'col-latency num'],
  ['Error', 'col-error'],
] as const;

function statusTone(status: number): 'ok' | 'warn' | 'bad' {
  return status < 400 ? 'ok' : status >= 500 ? 'bad' : 'warn';
}

export function Logs() {
  // Other pages link here with a filter: #/logs?line=openai&status=error, #/logs?request=req_….
  const state = useLogFilter();
  const { filter } = state;
  const filtered = Object.keys(filter).length > 0;
  const [order, setOrder] = useLogOrder();
  const log = useLogRows(filter, order);
  // The drawer's Newer and Older are up and down the list newest first, down and up oldest first.
  const newer = order === 'newest' ? -1 : 1;
  const [openId, setOpenId] = useState<number | null>(null);
  const openIndex = openId === null ? -1 : log.rows.findIndex((r) => r.id === openId);
  const open = openIndex >= 0 ? log.rows[openIndex]! : null;
  const setOpen = (e: LogEntry | null): void => setOpenId(e?.id ?? null);
  const step = (by: number): void => {
    const i = openIndex + by;
    const next = log.rows[i];
    if (!next) return;
    setCursor(i);
    setOpenId(next.id);
    v.scrollToIndex(i, { align: 'auto' });
    if (i >= log.rows.length - 5) log.loadMore();
  };
  const canStep = (by: number): boolean => openIndex >= 0 && log.rows[openIndex + by] !== undefined;
  const [cursor, setCursor] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const modelRef = useRef<HTMLInputElement>(null);
  useShortcuts(useMemo(() => ({ '/': () => modelRef.current?.focus() }), []));

  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual's API is not memoisable; this component is not compiled.
  const v = useVirtualizer({
    count: log.rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
    scrollPaddingEnd: ROW_HEIGHT,
  });
  const items = v.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last && last.index >= log.rows.length - 40) log.loadMore();
  }, [last, log]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    // Keys pressed on a control inside the grid (the Time header's button) are that control's.
    if (log.rows.length === 0 || e.target !== e.currentTarget) return;
    let next = cursor;
    if (e.key === 'ArrowDown' || e.key === 'j') next = Math.min(cursor + 1, log.rows.length - 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') next = Math.max(cursor - 1, 0);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = log.rows.length - 1;
    else if (e.key === 'Enter') {
      setOpen(log.rows[cursor] ?? null);
      e.preventDefault();
      return;
    } else return;
    e.preventDefault();
    setCursor(next);
    v.scrollToIndex(next, { align: 'auto' });
  };
  const active = log.rows[cursor];

  return (
    <>
      <PageHeader
        title="Usage log"
        subtitle={`Every model request, ${order} first, with what it cost. New requests appear as they finish.`}
      />
      <div className="toolbar log-filters" role="search">
        <LogFilters state={state} modelRef={modelRef} />
      </div>
      <div className="toolbar log-totals">
        <span className="live-dot" aria-hidden="true" />
        <LogSummary filter={filter} newestId={order === 'newest' ? log.rows[0]?.id : log.rows.at(-1)?.id} />
        <span className="toolbar-spacer" />
        <a className="button button-small" href={csvUrl(filter)} download>
          Export CSV
        </a>
      </div>
      <ErrorNote error={log.error} />
      {!log.isPending && log.rows.length === 0 ? (
        <Empty title={filtered ? 'No requests match this filter' : 'No requests yet'}>
          <p>Requests made with any key show up here as they finish, failures included.</p>
        </Empty>
      ) : (
        <div
          ref={scrollRef}
          className="log-table"
          role="grid"
          aria-label="Usage log"
          aria-rowcount={log.rows.length + 1}
          aria-activedescendant={active ? `log-row-${active.id}` : undefined}
          aria-busy={log.isPending || undefined}
          tabIndex={0}
          onKeyDown={onKeyDown}
        >
          <div role="rowgroup" className="log-head-group">
            <div className="log-row log-head" role="row" aria-rowindex={1}>
              <TimeHeader order={order} onOrder={(o) => (setOrder(o), setCursor(0), v.scrollToIndex(0))} />
              {COLUMNS.slice(1).map(([label, cls]) => (
                <span key={label} role="columnheader" className={cls}>
                  {label}
                </span>
              ))}
            </div>
          </div>
          {log.isPending ? <LoadingRows /> : null}
          <div role="rowgroup" style={{ height: v.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const e = log.rows[item.index]!;
              return (
                <LogRow
                  key={e.id}
                  e={e}
                  index={item.index}
                  start={item.start}
                  selected={item.index === cursor}
                  onOpen={() => (setCursor(item.index), setOpen(e))}
                />
              );
            })}
          </div>
        </div>
      )}
      <LogDetails
        entry={open}
        onClose={() => setOpen(null)}
        returnFocus={() => scrollRef.current?.focus()}
        onNewer={canStep(newer) ? () => step(newer) : undefined}
        onOlder={canStep(-newer) ? () => step(-newer) : undefined}
      />
    </>
  );
}

/** Grey rows in the grid's columns while the first page is on its way: loading is not "No requests yet". */
function LoadingRows() {
  return (
    <div className="log-loading" aria-hidden="true" data-testid="log-loading">
      {Array.from({ length: 8 }, (_, r) => (
        <div key={r} className="log-row log-skeleton-row">
          {COLUMNS.map(([label, cls], i) => (
            <span key={label} className={cls}>
              <Skeleton width={cls.includes('num') ? '40px' : SKELETON_WIDTHS[(r + i) % SKELETON_WIDTHS.length]} />
            </span>
          ))}
        </div>
      ))}
    </div>
  );
}

const SKELETON_WIDTHS = ['70%', '52%', '84%', '60%', '44%'];

interface RowProps {
  e: LogEntry;
  index: number;
  start: number;
  selected: boolean;
  onOpen(): void;
}

function LogRow({ e, index, start, selected, onOpen }: RowProps) {
  const error = e.status >= 400 ? (e.errorMessage ?? e.errorCode ?? `HTTP ${e.status}`) : null;
  return (
    <div
      id={`log-row-${e.id}`}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-request-id={e.requestId}
      className={selected ? 'log-row log-body selected' : 'log-row log-body'}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      onClick={onOpen}
    >
      <span role="gridcell" className="col-time mono muted" title={dateTime(e.ts)}>
        {dateTime(e.ts).slice(5)}
      </span>
      <span role="gridcell" className="col-key">
        {e.keyName ?? '—'}
      </span>
      <span role="gridcell" className="col-tool" title={e.tool ?? undefined}>
        {e.tool ? toolLabel(e.tool) : '—'}
      </span>
      <span role="gridcell" className="col-project" title={e.project ?? undefined}>
        {e.project ?? '—'}
      </span>
      <span role="gridcell" className="col-session mono muted" title={e.session ?? undefined}>
        {e.session ? shortSession(e.session) : '—'}
      </span>
      <span
        role="gridcell"
        className="col-model mono"
        title={e.servedModel && e.servedModel !== e.model ? `served as ${e.servedModel}` : undefined}
      >
        {e.model ?? '—'}
        {e.servedModel && e.servedModel !== e.model ? <span className="muted"> → {e.servedModel}</span> : null}
      </span>
      <span role="gridcell" className="col-line">
        {e.line ?? '—'}
        {e.attempts > 1 ? (
          <span className="muted" title={`${e.attempts} attempts: failed over`}>
            {' '}
            ×{e.attempts}
          </span>
        ) : null}
      </span>
      <span role="gridcell" className="col-status">
        <Badge tone={statusTone(e.status)}>{e.status}</Badge>
        {e.stream ? <span className="muted"> sse</span> : null}
      </span>
      <span
        role="gridcell"
        className="col-tokens num mono"
        title={
          `${tokens(e.usage.inputTokens)} in, ${tokens(e.usage.outputTokens)} out` +
          (e.usage.cacheReadTokens || e.usage.cacheWriteTokens
            ? `; ${tokens(e.usage.cacheReadTokens)} cache read, ${tokens(e.usage.cacheWriteTokens)} cache write`
            : '')
        }
      >
        {tokens(e.usage.inputTokens)}
        <span className="muted"> → </span>
        {tokens(e.usage.outputTokens)}
      </span>
      <span role="gridcell" className="col-cost num mono" data-testid="row-cost">
        <UsdCost micro={e.costMicro} />
      </span>
      <span role="gridcell" className="col-latency num mono muted">
        {ms(e.latencyMs)}
      </span>
      <span role="gridcell" className="col-error log-error" title={error ?? undefined}>
        {error ?? ''}
      </span>
    </div>
  );
}
