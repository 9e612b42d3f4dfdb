/**
 * The usage log's filter, declared once: the fields of `GET /api/logs` and `/api/logs.csv` that
 * narrow the log (every one optional, combined with AND), and `matches()`, which says whether one
 * entry passes. The ledger's SQL (gateway/store/ledger-reports.ts) mirrors `matches()` field for
 * field, and test/store/log-filter.test.ts holds the two equal on random rows and filters; the
 * console applies `matches()` to the rows that arrive live. A new field is one property here, one
 * line in `matches()` and one in the SQL.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { LogEntry } from './views.js';

export const LogFilter = Type.Object({
  /** Key name. */
  key: Type.Optional(Type.String()),
  /** The model id as the client sent it, before any alias. */
  model: Type.Optional(Type.String()),
  /** The line of the last attempt. */
  line: Type.Optional(Type.String()),
  /** An HTTP status such as 429, or `ok` (below 400) or `error` (400 and above). */
  status: Type.Optional(Type.String({ pattern: '^(ok|error|[1-5][0-9][0-9])$' })),
  /** The client protocol (`openai-chat`, `anthropic`, `openai-responses`, `gemini`). */
  protocol: Type.Optional(Type.String()),
  /** The agent session id (docs/sessions.md). */
  session: Type.Optional(Type.String()),
  /** The client tool: `claude-code`, `codex`, `gemini-cli`, … (contract/sessions.ts). */
  tool: Type.Optional(Type.String()),
  project: Type.Optional(Type.String()),
  /** One request by its id (`req_…`, also the client's `x-request-id`). */
  requestId: Type.Optional(Type.String()),
  /** Epoch ms: entries at or after it. */
  since: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Epoch ms: entries before it. */
  until: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type LogFilter = Static<typeof LogFilter>;

/** What of an entry a filter reads. */
export type LogFilterSubject = Pick<
  LogEntry,
  'keyName' | 'model' | 'line' | 'status' | 'inboundProtocol' | 'ts' | 'session' | 'tool' | 'project' | 'requestId'
>;

const FIELDS = Object.keys(LogFilter.properties) as (keyof LogFilter)[];

/** The filter in a larger query (GET /api/logs' `limit` and `before` beside it): its fields alone. */
export function logFilterOf(query: LogFilter): LogFilter {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (query[f] !== undefined) out[f] = query[f];
  return out as LogFilter;
}

/** Whether `entry` passes `filter`. A field left out, or undefined, does not narrow. */
export function matches(filter: LogFilter, entry: LogFilterSubject): boolean {
  const f = filter;
  if (f.key !== undefined && entry.keyName !== f.key) return false;
  if (f.model !== undefined && entry.model !== f.model) return false;
  if (f.line !== undefined && entry.line !== f.line) return false;
  if (f.protocol !== undefined && entry.inboundProtocol !== f.protocol) return false;
  if (f.session !== undefined && entry.session !== f.session) return false;
  if (f.tool !== undefined && entry.tool !== f.tool) return false;
  if (f.project !== undefined && entry.project !== f.project) return false;
  if (f.status === 'ok' && entry.status >= 400) return false;
  if (f.status === 'error' && entry.status < 400) return false;
  if (f.status !== undefined && f.status !== 'ok' && f.status !== 'error' && entry.status !== Number(f.status))
    return false;
  if (f.requestId !== undefined && entry.requestId !== f.requestId) return false;
  if (f.since !== undefined && entry.ts < f.since) return false;
  if (f.until !== undefined && entry.ts >= f.until) return false;
  return true;
}
