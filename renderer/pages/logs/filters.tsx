import { useSearchParams } from 'react-router';
import { useCallback, useEffect, useMemo, useState, type RefObject } from 'react';
import { LISTED_FORMATS } from '../../../gateway/contract/formats.js';
import { TOOLS, TOOL_NAMES } from '../../../gateway/contract/sessions.js';
import type { LogFilter } from '../../../gateway/contract/admin/index.js';
import { useKeys, useLines, useModels } from '../../lib/queries.js';
import { dateTime } from '../../lib/format.js';
import { useQueryUpdate } from '../../lib/query-update.js';

export const RANGES: [string, string, number][] = [
  ['', 'any time', 0],
  ['1h', 'last hour', 3_600_000],
  ['24h', 'last 24 hours', 86_400_000],
  ['7d', 'last 7 days', 7 * 86_400_000],
  ['30d', 'last 30 days', 30 * 86_400_000],
];
// A request refused for a missing or wrong key writes no row (docs/admin-api.md), so there is no
// "401" to filter by: the log's summary counts those refusals from GET /api/status instead.
const STATUSES: [string, string][] = [
  ['', 'any status'],
  ['ok', 'succeeded'],
  ['error', 'failed'],
  ['402', '402 funds'],
  ['404', '404 model'],
  ['429', '429 limited'],
  ['502', '502 upstream'],
  ['503', '503 no line'],
];

/**
 * The URL's names of the filter's fields: #/logs?key=ci&status=error&range=24h&request=req_…&tool=codex; `since`
 * and `until` (epoch ms) name an exact span, as the Overview's chart links to one hour or day.
 */
const PARAMS = [
  'key',
  'model',
  'line',
  'status',
  'protocol',
  'session',
  'tool',
  'project',
  'range',
  'since',
  'until',
  'request',
] as const;
type Param = (typeof PARAMS)[number];

function filterOf(params: URLSearchParams): LogFilter {
  const v = (p: Param): string => params.get(p) ?? '';
  const span = RANGES.find((r) => r[0] === v('range'))?.[2] ?? 0;
  const ms = (p: 'since' | 'until'): number | undefined => (/^\d{1,15}$/.test(v(p)) ? Number(v(p)) : undefined);
  const since = ms('since') ?? (span ? Date.now() - span : undefined);
  const until = ms('until');
  return {
    ...(v('key') ? { key: v('key') } : {}),
    ...(v('model') ? { model: v('model') } : {}),
    ...(v('line') ? { line: v('line') } : {}),
    ...(v('status') ? { status: v('status') } : {}),
    ...(v('protocol') ? { protocol: v('protocol') } : {}),
    ...(v('session') ? { session: v('session') } : {}),
    ...(v('tool') ? { tool: v('tool') } : {}),
    ...(v('project') ? { project: v('project') } : {}),
    ...(v('request') ? { requestId: v('request') } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
}

/**
 * The log's filter, held in the URL so that a filtered log can be linked, bookmarked and reloaded
 * (other pages link here with one). Typed fields (model, request id) wait for a pause in typing.
 */
export function useLogFilter() {
  const [params] = useSearchParams();
  const update = useQueryUpdate();
  const get = (p: Param): string => params.get(p) ?? '';
  // Several fields in one write (a span's two ends), one history entry.
  const setMany = useCallback(
    (patch: Partial<Record<Param, string>>): void =>
      update((query) => {
        for (const [p, value] of Object.entries(patch)) {
          if (value) query.set(p, value);
          else query.delete(p);
        }
      }),
    [update],
  );
  const set = useCallback((p: Param, value: string): void => setMany({ [p]: value }), [setMany]);
  const values = Object.fromEntries(PARAMS.map((p) => [p, get(p)])) as Record<Param, string>;
  // The URL's text is the filter's identity: the same text, the same filter (and the same cache key).
  // The order (order.tsx) sits in the same URL but is not part of the filter.
  const text = withoutOrder(params).toString();
  const filter = useMemo<LogFilter>(() => filterOf(new URLSearchParams(text)), [text]);
  // A span (since and until) is one filter to a person.
  const active = PARAMS.filter((p) => values[p] !== '' && !(p === 'until' && values.since)).length;
  return {
    values,
    set,
    setMany,
    filter,
    active,
    clear: () =>
      update((query) => {
        for (const k of [...query.keys()]) if (k !== 'order') query.delete(k);
      }),
  };
}

function withoutOrder(params: URLSearchParams): URLSearchParams {
  const p = new URLSearchParams(params);
  p.delete('order');
  return p;
}

export type LogFilterState = ReturnType<typeof useLogFilter>;

/** A text field that writes to the URL after a pause in typing, and follows the URL when it changes. */
function useTyped(state: LogFilterState, p: TypedParam): [string, (v: string) => void] {
  const fromUrl = state.values[p];
  const [text, setText] = useState(fromUrl);
  // Follow the URL when it changes from outside (a link, Clear filters), during render as React advises.
  const [seen, setSeen] = useState(fromUrl);
  if (seen !== fromUrl) {
    setSeen(fromUrl);
    if (text.trim() !== fromUrl) setText(fromUrl);
  }
  const { set } = state;
  useEffect(() => {
    const t = window.setTimeout(() => {
      if (text.trim() !== fromUrl) set(p, text.trim());
    }, 300);
    return () => window.clearTimeout(t);
  }, [text, fromUrl, set, p]);
  return [text, setText];
}

type TypedParam = 'model' | 'request' | 'session' | 'project';

/** A typed filter field (see useTyped), with its completions when it has any. */
function TypedField({
  state,
  p,
  label,
  placeholder,
  mono = false,
  options,
  inputRef,
}: {
  state: LogFilterState;
  p: TypedParam;
  label: string;
  placeholder: string;
  mono?: boolean;
  options?: readonly string[];
  inputRef?: RefObject<HTMLInputElement | null>;
}) {
  const [text, setText] = useTyped(state, p);
  const listId = options ? `log-${p}s` : undefined;
  return (
    <label className="toolbar-field">
      <span>{label}</span>
      <input
        ref={inputRef}
        aria-label={p === 'request' ? 'Search by request id' : `Filter by ${p}`}
        className={mono ? 'mono' : undefined}
        list={listId}
        placeholder={placeholder}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      {options ? (
        <datalist id={listId}>
          {options.map((o) => (
            <option key={o} value={o} />
          ))}
        </datalist>
      ) : null}
    </label>
  );
}

/** An exact span as words: "2026-11-25 14:00 – 15:00", "from 2026-11-25 00:00". */
function spanText(since: string, until: string): string {
  const at = (t: string): string => dateTime(Number(t)).slice(0, 16);
  if (since && until) {
    const a = at(since);
    const b = at(until);
    return `${a} – ${a.slice(0, 10) === b.slice(0, 10) ? b.slice(11) : b}`;
  }
  return since ? `from ${at(since)}` : `before ${at(until)}`;
}

export function LogFilters({
  state,
  modelRef,
}: {
  state: LogFilterState;
  modelRef: RefObject<HTMLInputElement | null>;
}) {
  const keys = useKeys();
  const models = useModels();
  const lines = useLines();
  const { values, set } = state;
  // A key's project label, else its name, is what its requests count under (docs/sessions.md).
  const projects = [...new Set((keys.data ?? []).map((k) => k.project ?? k.name))].sort();
  const select = (p: Param, label: string, options: [string, string][]) => (
    <label className="toolbar-field">
      <span>{label}</span>
      <select
        aria-label={`Filter by ${label.toLowerCase()}`}
        value={values[p]}
        onChange={(e) => set(p, e.target.value)}
      >
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <TypedField state={state} p="request" label="Request" placeholder="req_…" mono />
      {select('key', 'Key', [['', 'all keys'], ...(keys.data ?? []).map((k): [string, string] => [k.name, k.name])])}
      <TypedField
        state={state}
        p="model"
        label="Model"
        placeholder="any model  ( / )"
        options={models.data?.map((m) => m.id) ?? []}
        inputRef={modelRef}
      />
      {select('line', 'Line', [
        ['', 'all lines'],
        ...(lines.data ?? []).map((l): [string, string] => [l.name, l.name]),
      ])}
      {select('tool', 'Tool', [['', 'any tool'], ...TOOLS.map((t): [string, string] => [t, TOOL_NAMES[t]])])}
      <TypedField state={state} p="project" label="Project" placeholder="any project" options={projects} />
      <TypedField state={state} p="session" label="Session" placeholder="session id" mono />
      {select('status', 'Status', STATUSES)}
      {select('protocol', 'Protocol', [['', 'any protocol'], ...LISTED_FORMATS.map((p): [string, string] => [p, p])])}
      {values.since || values.until ? (
        <label className="toolbar-field">
          <span>Time</span>
          <select
            aria-label="Filter by time"
            value="span"
            // Another range replaces the exact span a link brought.
            onChange={(e) => state.setMany({ since: '', until: '', range: e.target.value })}
          >
            <option value="span">{spanText(values.since, values.until)}</option>
            {RANGES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
      ) : (
        select(
          'range',
          'Time',
          RANGES.map(([v, label]) => [v, label]),
        )
      )}
      {state.active > 0 ? (
        <button type="button" className="chip" onClick={state.clear}>
          Clear filters ({state.active}) <span aria-hidden="true">×</span>
        </button>
      ) : null}
    </>
  );
}
