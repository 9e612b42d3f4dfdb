import { useVirtualizer } from '@tanstack/react-virtual';
import { useSearchParams } from 'react-router';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { LISTED_FORMATS } from '../../../gateway/contract/formats.js';
import type { LogFilter } from '../../../gateway/contract/admin/index.js';
import { csvUrl, type LogEntry } from '../../lib/api.js';
import { useShortcuts } from '../../components/shortcuts.js';
import { Badge, Empty, ErrorNote, PageHeader } from '../../components/ui.js';
import { usdCost } from '../../../gateway/contract/money.js';
import { dateTime, ms, tokens } from '../../lib/format.js';
import { useKeys, useLines, useModels } from '../../lib/queries.js';
import { LogDetails } from './details.js';
import { useLogRows } from './use-log-rows.js';

const ROW_HEIGHT = 32;
const COLUMNS = [
  'Time',
  'Key',
  'Model',
  'Line',
  'Protocol',
  'Status',
  'In',
  'Out',
  'Cache',
  'Cost',
  'Latency',
] as const;
const NUMERIC = new Set<string>(['In', 'Out', 'Cache', 'Cost', 'Latency']);

function statusTone(status: number): 'ok' | 'warn' | 'bad' {
  return status < 400 ? 'ok' : status >= 500 ? 'bad' : 'warn';
}

const RANGES: [string, string, number][] = [
  ['', 'any time', 0],
  ['1h', 'last hour', 3_600_000],
  ['24h', 'last 24 hours', 86_400_000],
  ['7d', 'last 7 days', 7 * 86_400_000],
  ['30d', 'last 30 days', 30 * 86_400_000],
];
const STATUSES: [string, string][] = [
  ['', 'any status'],
  ['ok', 'succeeded'],
  ['error', 'failed'],
  ['401', '401 key'],
  ['402', '402 funds'],
  ['404', '404 model'],
  ['429', '429 limited'],
  ['502', '502 upstream'],
  ['503', '503 no line'],
];

export function Logs() {
  const keys = useKeys();
  const models = useModels();
  const lines = useLines();
  // Other pages link here with a filter: #/logs?line=openai&status=error.
  const [params] = useSearchParams();
  const [key, setKey] = useState(params.get('key') ?? '');
  const [model, setModel] = useState(params.get('model') ?? '');
  const [modelInput, setModelInput] = useState(params.get('model') ?? '');
  const [line, setLine] = useState(params.get('line') ?? '');
  const [status, setStatus] = useState(params.get('status') ?? '');
  const [protocol, setProtocol] = useState(params.get('protocol') ?? '');
  const [range, setRange] = useState('');
  const filter = useMemo<LogFilter>(() => {
    const span = RANGES.find((r) => r[0] === range)?.[2] ?? 0;
    return {
      ...(key ? { key } : {}),
      ...(model ? { model } : {}),
      ...(line ? { line } : {}),
      ...(status ? { status } : {}),
      ...(protocol ? { protocol } : {}),
      ...(span ? { since: Date.now() - span } : {}),
    };
  }, [key, model, line, status, protocol, range]);
  const filtered = Object.keys(filter).length > 0;
  const log = useLogRows(filter);
  const [open, setOpen] = useState<LogEntry | null>(null);
  const [cursor, setCursor] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const modelRef = useRef<HTMLInputElement>(null);
  useShortcuts(useMemo(() => ({ '/': () => modelRef.current?.focus() }), []));

  // Debounced so that typing a model id does not fire a request per character.
  useEffect(() => {
    const t = window.setTimeout(() => setModel(modelInput.trim()), 300);
    return () => window.clearTimeout(t);
  }, [modelInput]);

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
        <label className="toolbar-field">
          <span>Key</span>
          <select aria-label="Filter by key" value={key} onChange={(e) => setKey(e.target.value)}>
            <option value="">all keys</option>
            {keys.data?.map((k) => (
              <option key={k.id} value={k.name}>
                {k.name}
              </option>
            ))}
          </select>
        </label>
        <label className="toolbar-field">
          <span>Model</span>
          <input
            ref={modelRef}
            aria-label="Filter by model"
            list="log-models"
            placeholder="any model  ( / )"
            value={modelInput}
            onChange={(e) => setModelInput(e.target.value)}
          />
          <datalist id="log-models">
            {models.data?.map((m) => (
              <option key={m.id} value={m.id} />
            ))}
          </datalist>
        </label>
        <label className="toolbar-field">
          <span>Line</span>
          <select aria-label="Filter by line" value={line} onChange={(e) => setLine(e.target.value)}>
            <option value="">all lines</option>
            {lines.data?.map((l) => (
              <option key={l.id} value={l.name}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <label className="toolbar-field">
          <span>Status</span>
          <select aria-label="Filter by status" value={status} onChange={(e) => setStatus(e.target.value)}>
            {STATUSES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="toolbar-field">
          <span>Protocol</span>
          <select aria-label="Filter by protocol" value={protocol} onChange={(e) => setProtocol(e.target.value)}>
            <option value="">any protocol</option>
            {LISTED_FORMATS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label className="toolbar-field">
          <span>Time</span>
          <select aria-label="Filter by time" value={range} onChange={(e) => setRange(e.target.value)}>
            {RANGES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <span className="toolbar-spacer" />
        <span className="live-dot" aria-hidden="true" />
        <span className="muted">
          live · {log.rows.length.toLocaleString('en-US')} rows{log.hasMore ? '+' : ''}
        </span>
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
      <LogDetails entry={open} onClose={() => setOpen(null)} returnFocus={() => scrollRef.current?.focus()} />
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
      <span role="gridcell" className="muted">
        {e.inboundProtocol}
        {e.upstreamProtocol && e.upstreamProtocol !== e.inboundProtocol ? ` → ${e.upstreamProtocol}` : ''}
      </span>
      <span role="gridcell">
        <Badge tone={statusTone(e.status)}>{e.status}</Badge>
        {e.stream ? <span className="muted"> sse</span> : null}
      </span>
      <span role="gridcell" className="num mono">
        {tokens(e.usage.inputTokens)}
      </span>
      <span role="gridcell" className="num mono">
        {tokens(e.usage.outputTokens)}
      </span>
      <span role="gridcell" className="num mono muted">
        {e.usage.cacheReadTokens || e.usage.cacheWriteTokens
          ? `${tokens(e.usage.cacheReadTokens)}/${tokens(e.usage.cacheWriteTokens)}`
          : '—'}
      </span>
      <span role="gridcell" className="num mono" data-testid="row-cost">
        {usdCost(e.costMicro)}
      </span>
      <span role="gridcell" className="num mono muted">
        {ms(e.latencyMs)}
      </span>
    </div>
  );
}
