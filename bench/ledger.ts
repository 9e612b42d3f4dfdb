/**
 * `npm run bench -- --ledger`: the usage log at scale. Fills a fresh ledger with a
 * million requests spread over 90 days, then times what the console asks of it: the log's first
 * page, filtered pages, a deep page, 30-day stats, and a CSV export of every row, streamed, with
 * the heap watched to show it stays bounded. Figures and how to read them: docs/performance.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { logsCsv } from '../gateway/admin/logs-csv.js';
import { Ledger, type RequestRow } from '../gateway/store/ledger.js';
import type { LogPageQuery, StatsQuery } from '../gateway/store/ledger-reports.js';
import type { SessionListQuery } from '../gateway/store/ledger-sessions.js';
import { Samples } from './stats.js';

const DAY = 86_400_000;
const KEYS = Array.from({ length: 30 }, (_, i) => `key-${i}`);
const MODELS = Array.from({ length: 40 }, (_, i) => `model-${i}`);
const LINES = Array.from({ length: 8 }, (_, i) => `line-${i}`);
const PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'];
/** Tools by share of requests: a rare one (gemini-cli, 0.5 %) is where an unindexed filter would read the whole log. */
const TOOLS: [string, number][] = [
  ['claude-code', 0.6],
  ['codex', 0.85],
  ['openai-sdk', 0.95],
  ['curl', 0.995],
  ['gemini-cli', 1],
];
const PROJECTS = Array.from({ length: 20 }, (_, i) => `project-${i}`);
/** About 200 requests per agent session. */
const SESSION_SIZE = 200;

interface Timing {
  what: string;
  medianMs: number;
  p90Ms: number;
  rows: number;
  targetMs?: number;
}

export interface LedgerBenchResult {
  rows: number;
  fillSeconds: number;
  timings: Timing[];
  csv: {
    rows: number;
    megabytes: number;
    seconds: number;
    heapGrowthMb: number;
    liveHeapGrowthMb: number;
    rssGrowthMb: number;
  };
  pass: boolean;
}

/** A deterministic stream of numbers in [0, 1), so every run fills the same ledger. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function fakeRow(i: number, n: number, now: number, rnd: () => number): RequestRow {
  // Oldest first, 90 days up to now, so ids and times grow together as in a real ledger.
  const ts = now - 90 * DAY + Math.floor((i / n) * 90 * DAY);
  const status = rnd() < 0.95 ? 200 : rnd() < 0.5 ? 429 : rnd() < 0.99 ? 503 : 504;
  const t = rnd();
  const tool = TOOLS.find(([, upTo]) => t < upTo)![0];
  const input = Math.floor(rnd() * 4000);
  const output = Math.floor(rnd() * 800);
  return {
    requestId: `req_${i}`,
    ts,
    keyId: `id-${i % KEYS.length}`,
    keyName: KEYS[i % KEYS.length]!,
    model: MODELS[Math.floor(rnd() * MODELS.length)]!,
    servedModel: null,
    upstreamModel: null,
    line: LINES[Math.floor(rnd() * LINES.length)]!,
    attempts: 1,
    inboundProtocol: PROTOCOLS[Math.floor(rnd() * PROTOCOLS.length)]!,
    upstreamProtocol: 'openai-chat',
    stream: rnd() < 0.7,
    status,
    errorCode: status === 200 ? null : 'upstream_error',
    errorMessage: null,
    usage: {
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: status === 200 ? Math.ceil((input * 2.5 + output * 10) / 1) : 0,
    unchargedMicro: 0,
    latencyMs: 200 + Math.floor(rnd() * 3000),
    ttfbMs: 100,
    notes: null,
    billedAt: null,
    session: `session-${Math.floor(i / SESSION_SIZE)}-${tool}`,
    agent: null,
    tool,
    // One project in a thousand requests is the rare one.
    project: rnd() < 0.001 ? 'project-rare' : PROJECTS[Math.floor(i / SESSION_SIZE) % PROJECTS.length]!,
    savedMicro: 0,
  };
}

async function fill(ledger: Ledger, n: number, now: number): Promise<void> {
  const rnd = lcg(12_345);
  // The balance may not go below zero (store/ledger-schema.ts): enough money first for every row.
  ledger.topup(1_000_000_000_000_000);
  // Settlements of one event-loop turn share a transaction (ledger.ts): 10,000 per batch.
  for (let start = 0; start < n; start += 10_000) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(n, start + 10_000); i++) batch.push(ledger.settle(fakeRow(i, n, now, rnd)));
    await Promise.all(batch);
  }
}

function time(what: string, fn: () => number, targetMs?: number, runs = 25): Timing {
  for (let i = 0; i < 3; i++) fn(); // warm the statement cache and the page cache
  const samples = new Samples();
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    rows = fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const p = samples.percentiles()!;
  return { what, medianMs: p.p50, p90Ms: p.p90, rows, ...(targetMs === undefined ? {} : { targetMs }) };
}

async function csvExport(ledger: Ledger): Promise<LedgerBenchResult['csv']> {
  if (!global.gc)
    throw new Error(
      'The ledger bench measures memory after full collections: run it with node --expose-gc (npm run bench does).',
    );
  global.gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  let heapPeak = heap0;
  let livePeak = heap0;
  let rssPeak = rss0;
  let ticks = 0;
  // heapUsed includes garbage not yet collected; once a second a full collection (--expose-gc)
  // shows what the export really holds.
  const watch = setInterval(() => {
    if (++ticks % 20 === 0) {
      global.gc!();
      livePeak = Math.max(livePeak, process.memoryUsage().heapUsed);
    }
    const m = process.memoryUsage();
    heapPeak = Math.max(heapPeak, m.heapUsed);
    rssPeak = Math.max(rssPeak, m.rss);
  }, 50);
  let bytes = 0;
  let lines = 0;
  const t = process.hrtime.bigint();
  await pipeline(
    logsCsv(ledger.reports, {}),
    new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        done();
      },
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  clearInterval(watch);
  const mb = (n: number): number => n / 2 ** 20;
  return {
    rows: lines - 1,
    megabytes: mb(bytes),
    seconds,
    heapGrowthMb: mb(heapPeak - heap0),
    liveHeapGrowthMb: mb(livePeak - heap0),
    rssGrowthMb: mb(rssPeak - rss0),
  };
}

export async function runLedgerBench(rows: number, log: (line: string) => void): Promise<LedgerBenchResult> {
  const dir = mkdtempSync(join(os.tmpdir(), 'tollgate-ledger-bench-'));
  const ledger = new Ledger(dir);
  try {
    const now = Date.now();
    const t = process.hrtime.bigint();
    log(`bench: filling a ledger with ${rows.toLocaleString('en-US')} requests…`);
    await fill(ledger, rows, now);
    const fillSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    log(`bench: filled in ${fillSeconds.toFixed(1)} s`);
    const r = ledger.reports;
    const page = (q: LogPageQuery) => () => r.logs({ limit: 50, ...q }).length;
    const stats = (q: Omit<StatsQuery, 'since' | 'until'>) => () =>
      r.stats({ since: now - 30 * DAY, until: now, ...q }).length;
    const middle = Math.floor(rows / 2);
    const sessions = (q: Omit<SessionListQuery, 'limit'>) => () => ledger.sessions.list({ limit: 100, ...q }).length;
    const timings = [
      time('log: first page (50 rows)', page({}), 50),
      time('log: key filter', page({ key: 'key-7' }), 50),
      time('log: model + errors only', page({ model: 'model-3', status: 'error' }), 50),
      time('log: line + last 24 h', page({ line: 'line-2', since: now - DAY }), 50),
      time('log: protocol filter', page({ protocol: 'gemini' }), 50),
      time('log: page in the middle (before = n/2)', page({ beforeId: middle }), 50),
      time('log: key + model (rare pair)', page({ key: 'key-29', model: 'model-39' }), 50),
      time('log: errors only', page({ status: 'error' }), 50),
      time('log: one rare status (504, 0.03 %)', page({ status: '504' }), 50),
      time('log: rare tool (0.5 %)', page({ tool: 'gemini-cli' }), 50),
      time('log: project filter', page({ project: 'project-3' }), 50),
      time('log: rare project (0.1 %)', page({ project: 'project-rare' }), 50),
      time('log: one session', page({ session: `session-${Math.floor(middle / SESSION_SIZE)}-claude-code` }), 50),
      time('sessions: first page (100)', sessions({}), 50),
      time('sessions: key + tool filter', sessions({ key: 'key-7', tool: 'codex' }), 50),
      time('sessions: rare tool', sessions({ tool: 'gemini-cli' }), 50),
      time('sessions: active in the last hour', sessions({ since: now - 3_600_000 }), 50),
      time('log: a tool with no rows (opencode)', page({ tool: 'opencode' }), 50),
      time(
        'keys: 30 days of spend per day + last use, 30 keys',
        () => r.stats({ since: now - 30 * DAY, until: now, bucket: 'day', by: 'key' }).length + r.lastUsed(KEYS).size,
        300,
        10,
      ),
      time('stats: 30 days by day × model', stats({ bucket: 'day', by: 'model' }), 300, 10),
      time('stats: 30 days by hour × key', stats({ bucket: 'hour', by: 'key' }), 300, 10),
      time('stats: 30 days by day × line', stats({ bucket: 'day', by: 'line' }), 300, 10),
      time(
        'stats: 24 hours by hour × session',
        () => r.stats({ since: now - DAY, until: now, bucket: 'hour', by: 'session' }).length,
        300,
        10,
      ),
      time(
        'stats: 7 days by day × session',
        () => r.stats({ since: now - 7 * DAY, until: now, bucket: 'day', by: 'session' }).length,
        300,
        10,
      ),
      time('stats: 30 days by day × tool', stats({ bucket: 'day', by: 'tool' }), 300, 10),
      time(
        'top: 30 days, 5 largest keys',
        () => r.top({ since: now - 30 * DAY, until: now, by: 'key', limit: 5 }).rows.length,
        300,
        10,
      ),
      time(
        'top: 30 days, 5 largest sessions',
        () => r.top({ since: now - 30 * DAY, until: now, by: 'session', limit: 5 }).rows.length,
        300,
        10,
      ),
    ];
    log('bench: exporting every row as CSV…');
    const csv = await csvExport(ledger);
    const pass =
      timings.every((x) => x.targetMs === undefined || x.medianMs <= x.targetMs) &&
      csv.rows === rows &&
      csv.liveHeapGrowthMb < 64;
    return { rows, fillSeconds, timings, csv, pass };
  } finally {
    ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function ledgerReport(res: LedgerBenchResult): string {
  const ms = (n: number): string => n.toFixed(n < 10 ? 2 : 1);
  const lines = [
    `## Ledger at ${res.rows.toLocaleString('en-US')} rows`,
    '',
    `Filled in ${res.fillSeconds.toFixed(1)} s. Median and 90th percentile of 25 runs (10 for stats), after 3 warm-up runs, in one process with the ledger.`,
    '',
    '| query | rows back | median ms | p90 ms | target | |',
    '|---|---|---|---|---|---|',
    ...res.timings.map(
      (x) =>
        `| ${x.what} | ${x.rows} | ${ms(x.medianMs)} | ${ms(x.p90Ms)} | ${x.targetMs === undefined ? '' : `≤ ${x.targetMs} ms`} | ${x.targetMs === undefined ? '' : x.medianMs <= x.targetMs ? 'PASS' : 'MISS'} |`,
    ),
    '',
    `CSV export of every row: ${res.csv.rows.toLocaleString('en-US')} rows, ${res.csv.megabytes.toFixed(1)} MB in ${res.csv.seconds.toFixed(1)} s; ` +
      `live heap (after a full GC, once a second) grew by at most ${res.csv.liveHeapGrowthMb.toFixed(1)} MB, heap with garbage by ${res.csv.heapGrowthMb.toFixed(1)} MB, ` +
      `RSS by ${res.csv.rssGrowthMb.toFixed(1)} MB (target: live heap < 64 MB, whatever the row count) — ${res.csv.liveHeapGrowthMb < 64 && res.csv.rows === res.rows ? 'PASS' : 'MISS'}`,
    '',
  ];
  return lines.join('\n');
}
