/**
 * `node --import tsx bench/ledger-writes.ts [--fill ROWS] [--rounds N] [--repeat R] [--ledger-dir DIR]`: the
 * ledger's CPU per request as the gateway writes it, in process (no HTTP, no other process), so a
 * shared machine moves it little: process.cpuUsage() over many group commits, each the pending
 * rows of the requests just admitted and the settlements of those admitted one commit earlier (as
 * under load, where a request outlives the commit window of its admission), and a second shape
 * where every request is admitted and settled in the same commit window. `--ledger-dir` loads
 * `gateway/store/ledger.ts` from another checkout, for A/B runs of two builds interleaved.
 * docs/performance.md ("The ledger's write cost") has the figures.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { Ledger as LedgerType, PendingRow, RequestRow } from '../gateway/store/ledger.js';
import Database from 'better-sqlite3';
import { median } from './stats.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3000' },
    repeat: { type: 'string', default: '3' },
    'ledger-dir': { type: 'string' },
    batch: { type: 'string', default: '16' },
    fill: { type: 'string', default: '0' },
  },
});
const ROUNDS = Number(values.rounds);
const REPEAT = Number(values.repeat);
const BATCH = Number(values.batch);
const FILL = Number(values.fill);
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
  const t0 = Date.now() - n * 10;
  for (let start = 0; start < n; start += 5000) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(n, start + 5000); i++) {
      seq++;
      batch.push(ledger.settle({ ...requestRow(newId(), t0 + i * 10), session: `fill-${i >> 6}` }));
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

/** CPU µs per settled request over ROUNDS group commits of BATCH entries. */
function measure(ledger: LedgerType, overlap: boolean): number {
  let open: string[] = [];
  const run = (rounds: number): void => {
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
    }
  };
  run(Math.min(200, ROUNDS)); // warm the JIT and the statements
  const settled = ROUNDS * (overlap ? BATCH / 2 : BATCH);
  const t = process.cpuUsage();
  run(ROUNDS);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / settled;
}

/**
 * WAL frames (pages) written per commit, each shape: a second connection checkpoints the WAL so
 * that the ledger's next commit starts it over, then counts the frames of `n` commits (few enough
 * that no automatic checkpoint (at 1,000 frames) runs among them). Each page a commit dirtied is one frame.
 */
function pagesPerCommit(ledger: LedgerType, dir: string, overlap: boolean, n = 20): number {
  const peek = new Database(join(dir, 'ledger.sqlite'));
  const frames = (): number => (peek.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
  try {
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
    frames();
    for (let i = 0; i < n; i++) one(); // the first restarts the WAL from its first frame
    return frames() / n;
  } finally {
    peek.close();
  }
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
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    a.push(measure(ledger, true));
    b.push(measure(ledger, false));
  }
  const f = (xs: number[]): string => `median ${median(xs).toFixed(1)} µs [${xs.map((x) => x.toFixed(1)).join(', ')}]`;
  console.log(`ledger ${root}: ${FILL} rows before, batch of ${BATCH} entries, ${ROUNDS} commits per run`);
  console.log(`  admitted, settled a commit later (pending row written and deleted): ${f(a)}`);
  console.log(`  admitted and settled in one commit window (no pending row written):  ${f(b)}`);
  const pages = [pagesPerCommit(ledger, dir, true), pagesPerCommit(ledger, dir, false)];
  console.log(`  WAL pages written per commit, the two shapes: ${pages.map((p) => p.toFixed(1)).join(' / ')}`);
  ledger.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
