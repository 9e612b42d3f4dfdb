/**
 * The usage log's filter is one rule, written twice: as SQL where the ledger reads the log
 * (gateway/store/ledger-reports.ts) and as `matches()` in the contract, which the console applies
 * to rows that arrive live. On random rows (nulls included) and random filters, the rows the SQL
 * returns are exactly the rows `matches()` accepts, in the same order.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { FORMATS } from '../../gateway/contract/formats.js';
import { matches, type LogFilter } from '../../gateway/contract/admin/index.js';
import { Ledger, type LogEntry, type RequestRow } from '../../gateway/store/ledger.js';
import { MAX_LOG_PAGE } from '../../gateway/store/ledger-reports.js';
import { tempDataDir } from '../helpers/gateway.js';
import { rng } from '../helpers/seeded.js';

const dir = tempDataDir();
let ledger: Ledger;
let all: LogEntry[];
const r = rng(1913);
const T0 = Date.UTC(2026, 10, 20);
const KEYS = ['laptop', 'ci', 'k.3'];
const MODELS = ['gpt-4o', 'claude-sonnet-4-6', 'gemini-2.5-flash'];
const LINES = ['openai', 'anthropic', 'mock'];
const SESSIONS = ['sess-a', 'sess-b', 'sess-c'];
const TOOLS = ['claude-code', 'codex', 'openai-sdk'];
const PROJECTS = ['tollgate', 'website'];
const STATUSES = [200, 200, 200, 201, 399, 400, 401, 402, 404, 429, 499, 500, 503];
const ROWS = 400;

function row(i: number): RequestRow {
  const keyName = r.chance(0.15) ? null : r.pick(KEYS);
  return {
    requestId: `req_${i}`,
    ts: T0 + r.int(0, 50) * 60_000,
    keyId: keyName === null ? null : `key_${keyName}`,
    keyName,
    model: r.chance(0.1) ? null : r.pick(MODELS),
    servedModel: null,
    upstreamModel: null,
    line: r.chance(0.2) ? null : r.pick(LINES),
    attempts: 1,
    inboundProtocol: r.pick(FORMATS),
    upstreamProtocol: null,
    stream: false,
    status: r.pick(STATUSES),
    errorCode: null,
    errorMessage: null,
    usage: {
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: r.int(0, 40_000),
    unchargedMicro: 0,
    latencyMs: 1,
    ttfbMs: null,
    notes: null,
    billedAt: null,
    session: r.chance(0.2) ? null : r.pick(SESSIONS),
    agent: null,
    tool: r.chance(0.2) ? null : r.pick(TOOLS),
    project: r.chance(0.2) ? null : r.pick(PROJECTS),
    savedMicro: 0,
  };
}

/** A filter of zero to four fields, values drawn so that some match and some match nothing. */
function filter(): LogFilter {
  const f: LogFilter = {};
  const fields = r.many(0, 4, () => r.int(0, 10));
  for (const n of fields) {
    if (n === 0) f.key = r.pick([...KEYS, 'nobody']);
    if (n === 1) f.model = r.pick([...MODELS, 'gpt-5']);
    if (n === 2) f.line = r.pick([...LINES, 'none']);
    if (n === 3) f.status = r.pick(['ok', 'error', '200', '429', '503', '302']);
    if (n === 4) f.protocol = r.pick([...FORMATS, 'soap']);
    if (n === 5) f.since = T0 + r.int(-5, 55) * 60_000;
    if (n === 6) f.until = T0 + r.int(-5, 55) * 60_000;
    if (n === 7) f.requestId = `req_${r.int(0, ROWS + 5)}`;
    if (n === 8) f.session = r.pick([...SESSIONS, 'sess-none']);
    if (n === 9) f.tool = r.pick([...TOOLS, 'unknown']);
    if (n === 10) f.project = r.pick([...PROJECTS, 'elsewhere']);
  }
  return f;
}

before(async () => {
  ledger = new Ledger(dir);
  ledger.topup(ROWS * 40_000);
  await Promise.all(Array.from({ length: ROWS }, (_, i) => ledger.settle(row(i))));
  all = ledger.reports.logs({ limit: MAX_LOG_PAGE });
  assert.equal(all.length, ROWS);
});

after(() => {
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

test('on 500 random filters, the SQL returns exactly the rows matches() accepts', () => {
  let nonEmpty = 0;
  for (let i = 0; i < 500; i++) {
    const f = filter();
    const bySql = ledger.reports.logs({ ...f, limit: MAX_LOG_PAGE }).map((e) => e.id);
    const byMatches = all.filter((e) => matches(f, e)).map((e) => e.id);
    assert.deepEqual(bySql, byMatches, JSON.stringify(f));
    if (bySql.length > 0 && bySql.length < ROWS) nonEmpty++;
  }
  assert.ok(nonEmpty > 100, `only ${nonEmpty} filters narrowed the log to some rows: the test would prove little`);
});

test('a filter with every field left undefined narrows nothing, on either side', () => {
  const f: LogFilter = { key: undefined, model: undefined, status: undefined, since: undefined };
  assert.equal(ledger.reports.logs({ ...f, limit: MAX_LOG_PAGE }).length, ROWS);
  assert.equal(all.filter((e) => matches(f, e)).length, ROWS);
});

test('the summary of 300 random filters is the count and sums of the rows matches() accepts', () => {
  for (let i = 0; i < 300; i++) {
    const f = filter();
    const rows = all.filter((e) => matches(f, e));
    const sum = (pick: (e: LogEntry) => number): number => rows.reduce((t, e) => t + pick(e), 0);
    assert.deepEqual(
      ledger.reports.logSummary(f),
      {
        requests: rows.length,
        errors: rows.filter((e) => e.status >= 400).length,
        costMicro: sum((e) => e.costMicro),
        inputTokens: sum((e) => e.usage.inputTokens),
        outputTokens: sum((e) => e.usage.outputTokens),
        cacheReadTokens: sum((e) => e.usage.cacheReadTokens),
        cacheWriteTokens: sum((e) => e.usage.cacheWriteTokens),
      },
      JSON.stringify(f),
    );
  }
});
