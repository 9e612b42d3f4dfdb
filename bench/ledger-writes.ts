/**
 * `node --import tsx bench/ledger-writes.ts [--fill ROWS] [--days D] [--rounds N] [--repeat R] [--ledger-dir DIR]`: the
 * ledger's CPU per request as the gateway writes it, in process (no HTTP, no other process), so a
 * shared machine moves it little: process.cpuUsage() over many group commits, each the pending
 * rows of the requests just admitted and the settlements of those admitted one commit earlier (as
 * under load, where a request outlives the commit window of its admission), and a second shape
 * where every request is admitted and settled in the same commit window. `--ledger-dir` loads
 * `gateway/store/ledger.ts` from another checkout, for A/B runs of two builds interleaved.
 * `--statements` adds the wall time of each SQLite statement the commits ran (better-sqlite3's
 * `run` wrapped, BEGIN and COMMIT included), per commit and per settled request, under load's shape.
 * docs/performance.md ("The ledger's write cost") has the figures.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { Ledger as LedgerType, PendingRow, RequestRow } from '../gateway/store/ledger.js';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { median } from './stats.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3000' },
    repeat: { type: 'string', default: '3' },
    'ledger-dir': { type: 'string' },
    batch: { type: 'string', default: '16' },
    fill: { type: 'string', default: '0' },
    days: { type: 'string', default: '0' },
    statements: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const REPEAT = Number(values.repeat);
const BATCH = Number(values.batch);
const FILL = Number(values.fill);
/** Spread the fill over this many days, across 8 models and 4 keys (0: 10 ms apart, one model and key). */
const DAYS = Number(values.days);
const root = resolve(values['ledger-dir'] ?? join(import.meta.dirname, '..'));
const { Ledger } = (await import(pathToFileURL(join(root, 'gateway/store/ledger.ts')).href)) as {
  Ledger: new (dir: string) => LedgerType;
};

const SESSIONS = ['sess-a', 'sess-b', 'sess-c', 'sess-d'];
const PRICES = { input: 2_500_000, output: 10_000_000, cacheRead: 250_000, cacheWrite: 3_125_000 };
let seq = 0;
/** The request ids of that build: time-ordered (store/request-id.ts), or wholly random in builds before it. */
const newId: () => string = existsSync(join(root, 'gateway/store/request-id.ts'))
  ? ((await import(pathToFileURL(join(root, 'gateway/store/request-id.ts')).href)) as { newRequestId: () => string })
      .newRequestId
  : () => `req_${randomUUID().replaceAll('-', '')}`;

/** A ledger of `n` requests first, as a user's is after months: indexes as large as theirs. */
async function fill(ledger: LedgerType, n: number): Promise<void> {
  const step = DAYS > 0 ? (DAYS * 86_400_000) / n : 10;
  const t0 = Date.now() - n * step;
  for (let start = 0; start < n; start += 5000) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(n, start + 5000); i++) {
      seq++;
      const row = { ...requestRow(newId(), Math.floor(t0 + i * step)), session: `fill-${i >> 6}` };
      if (DAYS > 0) Object.assign(row, { model: `model-${i % 8}`, keyName: `key-${i % 4}`, keyId: `key_${i % 4}` });
      batch.push(ledger.settle(row));
    }
    await Promise.all(batch);
  }
}

function pendingRow(id: string, ts: number): PendingRow {
  return {
    requestId: id,
    ts,
    keyId: 'key_1',
    keyName: 'bench',
    model: 'gpt-4o-mini',
    inboundProtocol: 'openai-chat',
    stream: false,
    heldMicro: 12_345,
  };
}

function requestRow(id: string, ts: number): RequestRow {
  return {
    requestId: id,
    ts,
    keyId: 'key_1',
    keyName: 'bench',
    model: 'gpt-4o-mini',
    servedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini-2024-07-18',
    line: 'openai-main',
    attempts: 1,
    inboundProtocol: 'openai-chat',
    upstreamProtocol: 'openai-chat',
    stream: false,
    status: 200,
    errorCode: null,
    errorMessage: null,
    usage: {
      inputTokens: 512,
      outputTokens: 20,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: 3,
    unchargedMicro: 0,
    latencyMs: 4,
    ttfbMs: 3,
    notes: null,
    billedAt: { prices: PRICES, multiplierPpm: 1_000_000 },
    session: SESSIONS[seq % SESSIONS.length]!,
    agent: null,
    tool: 'openai-sdk',
    project: 'bench',
    savedMicro: 0,
  };
}

/** A turn of the event loop, as the gateway has between commits (the ledger's checkpoint runs in one). */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** CPU µs per settled request over ROUNDS group commits of BATCH entries, a turn between commits. */
async function measure(ledger: LedgerType, overlap: boolean): Promise<number> {
  let open: string[] = [];
  const run = async (rounds: number): Promise<void> => {
    for (let r = 0; r < rounds; r++) {
      const ts = Date.now();
      const ids: string[] = [];
      const half = overlap ? BATCH / 2 : BATCH;
      for (let i = 0; i < half; i++) {
        const id = newId();
        ids.push(id);
        ledger.open(pendingRow(id, ts));
      }
      // Under load: the settlements of the requests admitted one commit earlier.
      const settling = overlap ? open : ids;
      for (const id of settling) ledger.settle(requestRow(id, ts)).catch((e: unknown) => console.error(e));
      open = overlap ? ids : [];
      ledger.flush();
      await turn();
    }
  };
  await run(Math.min(200, ROUNDS)); // warm the JIT and the statements
  const settled = ROUNDS * (overlap ? BATCH / 2 : BATCH);
  const t = process.cpuUsage();
  await run(ROUNDS);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / settled;
}

/**
 * Checkpoints the ledger's WAL from a connection of its own and returns the frames the WAL held. A
 * fresh connection each time: one kept open reported an empty WAL after the ledger's own
 * checkpoint had started the WAL over.
 */
/**
 * The ledger's own copy of better-sqlite3 (that checkout's): two copies of SQLite in one process do
 * not see each other's file locks.
 */
const Database = createRequire(join(root, 'package.json'))('better-sqlite3') as typeof BetterSqlite3;

function walFrames(dir: string): number {
  const peek = new Database(join(dir, 'ledger.sqlite'));
  try {
    return (peek.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
  } finally {
    peek.close();
  }
}

/**
 * WAL frames (pages) written per commit, each shape: the WAL is checkpointed so that the ledger's
 * next commit starts it over, then the frames of `n` commits are counted (few enough that no
 * checkpoint runs among them: no turn passes). Each page a commit dirtied is one frame.
 */
function pagesPerCommit(ledger: LedgerType, dir: string, overlap: boolean, n = 20): number {
  let open: string[] = [];
  const one = (): void => {
    const ts = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < (overlap ? BATCH / 2 : BATCH); i++) {
      const id = newId();
      ids.push(id);
      ledger.open(pendingRow(id, ts));
    }
    for (const id of overlap ? open : ids) ledger.settle(requestRow(id, ts)).catch((e: unknown) => console.error(e));
    open = overlap ? ids : [];
    ledger.flush();
  };
  one();
  walFrames(dir);
  for (let i = 0; i < n; i++) one(); // the first starts the WAL over
  return walFrames(dir) / n;
}

/**
 * One request at a time, as at c=1: its pending row committed alone, then its settlement (the
 * commit its answer waits for), timed, a turn after each; ms at the median, 99th percentile, max
 * and mean, and the CPU per request of both commits.
 */
async function oneAtATime(ledger: LedgerType, n = 2000): Promise<string> {
  const ms: number[] = [];
  let cpu = { user: 0, system: 0 };
  for (let i = 0; i < n + 100; i++) {
    if (i === 100) cpu = process.cpuUsage();
    const id = newId();
    const ts = Date.now();
    ledger.open(pendingRow(id, ts));
    ledger.flush();
    await turn();
    ledger.settle(requestRow(id, ts)).catch((e: unknown) => console.error(e));
    const t = performance.now();
    ledger.flush();
    if (i >= 100) ms.push(performance.now() - t);
    await turn();
  }
  const d = process.cpuUsage(cpu);
  ms.sort((a, b) => a - b);
  const at = (q: number): string => ms[Math.floor(q * (ms.length - 1))]!.toFixed(3);
  const mean = (ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(3);
  return `p50 ${at(0.5)}, p99 ${at(0.99)}, max ${at(1)}, mean ${mean}; CPU ${((d.user + d.system) / n).toFixed(1)} µs a request`;
}

/** The WAL pages of one request's settlement commit at c=1 (its pending row committed before). */
function pagesOfSettlement(ledger: LedgerType, dir: string, n = 20): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const id = newId();
    const ts = Date.now();
    ledger.open(pendingRow(id, ts));
    ledger.flush();
    walFrames(dir);
    ledger.settle(requestRow(id, ts)).catch((e: unknown) => console.error(e));
    ledger.flush();
    total += walFrames(dir);
  }
  return total / n;
}

/**
 * Wall time of each statement's `run` over ROUNDS commits of the under-load shape, by its SQL: what a
 * commit spends where (the time outside them is the ledger's JavaScript and better-sqlite3's binding).
 */
async function statements(ledger: LedgerType): Promise<void> {
  const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as {
    run: (...args: unknown[]) => unknown;
  };
  const run = proto.run;
  const spent = new Map<string, { ms: number; cpu: number; calls: number }>();
  let on = false;
  proto.run = function (this: { source: string }, ...args: unknown[]): unknown {
    if (!on) return run.apply(this, args);
    const c = process.cpuUsage();
    const t = performance.now();
    try {
      return run.apply(this, args);
    } finally {
      const ms = performance.now() - t;
      const d = process.cpuUsage(c);
      const key = this.source.replace(/\s+/g, ' ').slice(0, 60);
      const s = spent.get(key) ?? { ms: 0, cpu: 0, calls: 0 };
      s.ms += ms;
      s.cpu += d.user + d.system;
      s.calls++;
      spent.set(key, s);
    }
  };
  const flush = ledger.flush.bind(ledger);
  let flushCpu = 0;
  ledger.flush = () => {
    const c = process.cpuUsage();
    flush();
    const d = process.cpuUsage(c);
    if (on) flushCpu += d.user + d.system;
  };
  try {
    await measure(ledger, true); // warm
    on = true;
    await measure(ledger, true);
  } finally {
    on = false;
    proto.run = run;
    ledger.flush = flush;
  }
  const settled = ROUNDS * (BATCH / 2);
  let inStatements = 0;
  const n = (x: number, d = 1): string => x.toFixed(d).padStart(7);
  console.log(
    `  statements, under load (${ROUNDS} commits, ${settled} settlements): calls a commit; CPU µs a commit, a request; wall µs a request`,
  );
  for (const [sql, s] of [...spent].sort((a, b) => b[1].cpu - a[1].cpu)) {
    inStatements += s.cpu;
    console.log(
      `    ${n(s.calls / ROUNDS)} ${n(s.cpu / ROUNDS)} ${n(s.cpu / settled, 2)} ${n((s.ms * 1000) / settled, 2)}  ${sql}`,
    );
  }
  console.log(
    `    flush's CPU in all: ${(flushCpu / settled).toFixed(2)} µs a request, of which outside the statements ${((flushCpu - inStatements) / settled).toFixed(2)}`,
  );
}

const dir = mkdtempSync(join(os.tmpdir(), 'tollgate-ledger-writes-'));
try {
  const ledger = new Ledger(dir);
  ledger.topup(1_000_000_000_000);
  if (FILL > 0) {
    const t = Date.now();
    await fill(ledger, FILL);
    console.log(`filled ${FILL} rows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  if (values.statements) await statements(ledger);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    a.push(await measure(ledger, true));
    b.push(await measure(ledger, false));
  }
  const f = (xs: number[]): string => `median ${median(xs).toFixed(1)} µs [${xs.map((x) => x.toFixed(1)).join(', ')}]`;
  console.log(`ledger ${root}: ${FILL} rows before, batch of ${BATCH} entries, ${ROUNDS} commits per run`);
  console.log(`  admitted, settled a commit later (pending row written and deleted): ${f(a)}`);
  console.log(`  admitted and settled in one commit window (no pending row written):  ${f(b)}`);
  const pages = [pagesPerCommit(ledger, dir, true), pagesPerCommit(ledger, dir, false)];
  console.log(`  WAL pages written per commit, the two shapes: ${pages.map((p) => p.toFixed(1)).join(' / ')}`);
  console.log(`  one request at a time (c=1), its settlement's commit, ms: ${await oneAtATime(ledger)}`);
  console.log(`    WAL pages of that commit: ${pagesOfSettlement(ledger, dir).toFixed(1)}`);
  ledger.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
