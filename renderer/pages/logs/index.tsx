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
import './logs-page.css';

const ROW_HEIGHT = 32;
// Protocol and cache tokens live in the details drawer, so the grid fits a 1280 px window.
const COLUMNS = ['Time', 'Key', 'Model', 'Line', 'Status', 'In', 'Out', 'Cost', 'Latency', 'Error'] as const;
const NUMERIC = new Set<string>(['In', 'Out', 'Cost', 'Latency']);

function statusTone(status: number): 'ok' | 'warn' | 'bad' {
  return status < 400 ? 'ok' : status >= 500 ? 'bad' : 'warn';
}

export function Logs() {
  // Other pages link here with a filter: #/logs?line=openai&status=error, #/logs?request=req_….
  const state = useLogFilter();
  const { filter } = state;
  const filtered = Object.keys(filter).length > 0;
  const log = useLogRows(filter);
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
    if (log.rows.length === 0) return;
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
        subtitle="Every model request, newest first, with what it cost. New requests appear as they finish."
      />
      <div className="toolbar" role="search">
        <LogFilters state={state} modelRef={modelRef} />
      </div>
      <div className="toolbar log-totals">
        <span className="live-dot" aria-hidden="true" />
        <LogSummary filter={filter} newestId={log.rows[0]?.id} />
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
          tabIndex={0}
          onKeyDown={onKeyDown}
        >
          <div role="rowgroup" className="log-head-group">
            <div className="log-row log-head" role="row" aria-rowindex={1}>
              {COLUMNS.map((c) => (
                <span key={c} role="columnheader" className={NUMERIC.has(c) ? 'num' : ''}>
                  {c}
                </span>
              ))}
            </div>
          </div>
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
        onNewer={openIndex > 0 ? () => step(-1) : undefined}
        onOlder={openIndex >= 0 && openIndex < log.rows.length - 1 ? () => step(1) : undefined}
      />
    </>
  );
}

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
      <span role="gridcell" className="mono muted" title={dateTime(e.ts)}>
        {dateTime(e.ts).slice(5)}
      </span>
      <span role="gridcell">{e.keyName ?? '—'}</span>
      <span
        role="gridcell"
        className="mono"
        title={e.servedModel && e.servedModel !== e.model ? `served as ${e.servedModel}` : undefined}
      >
        {e.model ?? '—'}
        {e.servedModel && e.servedModel !== e.model ? <span className="muted"> → {e.servedModel}</span> : null}
      </span>
      <span role="gridcell">
        {e.line ?? '—'}
        {e.attempts > 1 ? (
          <span className="muted" title={`${e.attempts} attempts: failed over`}>
            {' '}
            ×{e.attempts}
          </span>
        ) : null}
      </span>
      <span role="gridcell">
        <Badge tone={statusTone(e.status)}>{e.status}</Badge>
        {e.stream ? <span className="muted"> sse</span> : null}
      </span>
      <span
        role="gridcell"
        className="num mono"
        title={
          e.usage.cacheReadTokens || e.usage.cacheWriteTokens
            ? `${tokens(e.usage.cacheReadTokens)} cache read, ${tokens(e.usage.cacheWriteTokens)} cache write`
            : undefined
        }
      >
        {tokens(e.usage.inputTokens)}
      </span>
      <span role="gridcell" className="num mono">
        {tokens(e.usage.outputTokens)}
      </span>
      <span role="gridcell" className="num mono" data-testid="row-cost">
        <UsdCost micro={e.costMicro} />
      </span>
      <span role="gridcell" className="num mono muted">
        {ms(e.latencyMs)}
      </span>
      <span role="gridcell" className="log-error" title={error ?? undefined}>
        {error ?? ''}
      </span>
    </div>
  );
}
