/**
 * The usage log as CSV, streamed: rows are read from the ledger a page at a time and written as
 * they go, so exporting a million rows holds a page in memory, not the file. csv-stringify does the
 * quoting (RFC 4180) and neutralises spreadsheet formulas: a model id is whatever a client sent, and
 * "=HYPERLINK(…)" must not become a live formula in the person's spreadsheet.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { LISTED_BUCKETS, USAGE_BUCKETS } from '../contract/usage-buckets.js';
import type { LogEntry } from '../store/ledger.js';
import type { LogFilter } from '../contract/admin/index.js';
import type { LedgerReports } from '../store/ledger-reports.js';

type Column = [string, (e: LogEntry) => string | number | null];

const COLUMNS: Column[] = [
  ['id', (e) => e.id],
  ['time', (e) => new Date(e.ts).toISOString()],
  ['request_id', (e) => e.requestId],
  ['key', (e) => e.keyName],
  ['model', (e) => e.model],
  ['served_model', (e) => e.servedModel],
  ['upstream_model', (e) => e.upstreamModel],
  ['line', (e) => e.line],
  ['attempts', (e) => e.attempts],
  ['inbound_protocol', (e) => e.inboundProtocol],
  ['upstream_protocol', (e) => e.upstreamProtocol],
  ['stream', (e) => (e.stream ? 'true' : 'false')],
  ['status', (e) => e.status],
  ['error_code', (e) => e.errorCode],
  // The usage buckets the export has a column for (contract/usage-buckets.ts), in listed order.
  ...LISTED_BUCKETS.flatMap((k): Column[] => {
    const name = USAGE_BUCKETS[k].csv;
    return name === null ? [] : [[name, (e) => e.usage[k]]];
  }),
  ['usage_estimated', (e) => (e.usageEstimated ? 'true' : 'false')],
  ['cost_micro_usd', (e) => e.costMicro],
  ['uncharged_micro_usd', (e) => e.unchargedMicro],
  ['latency_ms', (e) => e.latencyMs],
  ['ttfb_ms', (e) => e.ttfbMs],
  ['notes', (e) => e.notes],
  ['session', (e) => e.session],
  ['agent', (e) => e.agent],
  ['tool', (e) => e.tool],
  ['project', (e) => e.project],
  ['cache_hit_rate', (e) => Math.round(e.cacheHitRate * 10_000) / 10_000],
  ['saved_micro_usd', (e) => e.savedMicro],
];

/**
 * One record per entry; every thousand it waits for the event loop's next turn, so a long export
 * never starves the requests the gateway is serving meanwhile (their settlements included).
 */
async function* records(entries: Iterable<LogEntry>): AsyncGenerator<(string | number | null)[]> {
  let n = 0;
  for (const e of entries) {
    yield COLUMNS.map(([, get]) => get(e));
    if (++n % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A byte stream of the CSV of every entry the filter matches, newest first, with a header row. */
export function logsCsv(reports: LedgerReports, filter: LogFilter): Readable {
  const source = Readable.from(records(reports.iterateLogs(filter)));
  const csv = stringify({ header: true, columns: COLUMNS.map(([name]) => name), escape_formulas: true });
  source.on('error', (err) => csv.destroy(err));
  return source.pipe(csv);
}
