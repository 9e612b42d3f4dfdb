/** The ledger read back: filters, keyset paging, stats buckets, bounded iteration and wallet history. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Ledger, type RequestRow } from '../../gateway/store/ledger.js';
import { where } from '../../gateway/store/ledger-reports.js';
import type { LogFilter } from '../../gateway/contract/admin/log-filter.js';
import { tempDataDir } from '../helpers/gateway.js';

const dir = tempDataDir();
let ledger: Ledger;
const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);
const HOUR = 3_600_000;

function row(i: number, over: Partial<RequestRow> = {}): RequestRow {
  return {
    requestId: `req_${i}`,
    ts: T0 + i * HOUR,
    keyId: `key_${i % 2}`,
    keyName: i % 2 ? 'ci' : 'laptop',
    model: i % 3 ? 'gpt-4o' : 'claude-sonnet-4-6',
    servedModel: null,
    upstreamModel: null,
    line: i % 4 ? 'openai' : 'anthropic',
    attempts: 1,
    inboundProtocol: i % 5 ? 'openai-chat' : 'anthropic',
    upstreamProtocol: 'openai-chat',
    stream: false,
    status: i % 7 ? 200 : 503,
    errorCode: null,
    errorMessage: null,
    usage: {
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: i,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: i % 7 ? 100 + i : 0,
    unchargedMicro: 0,
    latencyMs: 10,
    ttfbMs: 5,
    notes: null,
    billedAt: null,
    session: null,
    agent: null,
    tool: null,
    project: null,
    savedMicro: 0,
    ...over,
  };
}

const ROWS = 60;

before(async () => {
  ledger = new Ledger(dir);
  ledger.topup(5_000_000, 'first');
  ledger.topup(2_000_000, null);
  await Promise.all(Array.from({ length: ROWS }, (_, i) => ledger.settle(row(i))));
});

after(() => {
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The oracle: the same filter applied to the rows in memory. */
function expected(pred: (r: RequestRow, i: number) => boolean): string[] {
  return Array.from({ length: ROWS }, (_, i) => row(i))
    .filter(pred)
    .map((r) => r.requestId)
    .reverse();
}

test('each filter, and filters combined, select exactly the matching rows, newest first', () => {
  const ids = (f: Parameters<typeof ledger.reports.logs>[0]) =>
    ledger.reports.logs({ limit: 1000, ...f }).map((e) => e.requestId);
  assert.deepEqual(
    ids({ key: 'ci' }),
    expected((r) => r.keyName === 'ci'),
  );
  assert.deepEqual(
    ids({ model: 'gpt-4o' }),
    expected((r) => r.model === 'gpt-4o'),
  );
  assert.deepEqual(
    ids({ line: 'anthropic' }),
    expected((r) => r.line === 'anthropic'),
  );
  assert.deepEqual(
    ids({ status: '503' }),
    expected((r) => r.status === 503),
  );
  assert.deepEqual(
    ids({ status: 'error' }),
    expected((r) => r.status >= 400),
  );
  assert.deepEqual(
    ids({ status: 'ok' }),
    expected((r) => r.status < 400),
  );
  assert.deepEqual(
    ids({ protocol: 'anthropic' }),
    expected((r) => r.inboundProtocol === 'anthropic'),
  );
  assert.deepEqual(
    ids({ since: T0 + 10 * HOUR, until: T0 + 20 * HOUR }),
    expected((r) => r.ts >= T0 + 10 * HOUR && r.ts < T0 + 20 * HOUR),
  );
  assert.deepEqual(
    ids({ key: 'laptop', model: 'gpt-4o', status: 'ok', since: T0 + 5 * HOUR }),
    expected((r) => r.keyName === 'laptop' && r.model === 'gpt-4o' && r.status < 400 && r.ts >= T0 + 5 * HOUR),
  );
  assert.deepEqual(ids({ key: 'nobody' }), []);
});

test('pages follow the before cursor without gaps or repeats', () => {
  const seen: string[] = [];
  let beforeId: number | undefined;
  for (;;) {
    const page = ledger.reports.logs({ model: 'gpt-4o', limit: 7, beforeId });
    seen.push(...page.map((e) => e.requestId));
    if (page.length < 7) break;
    beforeId = page[page.length - 1]!.id;
  }
  assert.deepEqual(
    seen,
    expected((r) => r.model === 'gpt-4o'),
  );
});

test('iterateLogs yields every matching row across its internal pages', () => {
  assert.deepEqual(
    [...ledger.reports.iterateLogs({ line: 'openai' })].map((e) => e.requestId),
    expected((r) => r.line === 'openai'),
  );
});

test('stats sum requests, errors, cost and tokens per bucket and group, in SQL', () => {
  const day = ledger.reports.stats({ since: T0, until: T0 + 3 * 24 * HOUR, bucket: 'day', by: 'model' });
  const all = Array.from({ length: ROWS }, (_, i) => row(i)).filter((r) => r.ts < T0 + 72 * HOUR);
  for (const s of day) {
    const mine = all.filter(
      (r) => r.model === s.group && Math.floor((r.ts - T0) / (24 * HOUR)) * 24 * HOUR + T0 === s.start,
    );
    assert.equal(s.requests, mine.length);
    assert.equal(s.errors, mine.filter((r) => r.status >= 400).length);
    assert.equal(
      s.costMicro,
      mine.reduce((a, r) => a + r.costMicro, 0),
    );
    assert.equal(
      s.cacheReadTokens,
      mine.reduce((a, r) => a + r.usage.cacheReadTokens, 0),
    );
  }
  assert.equal(
    day.reduce((a, s) => a + s.requests, 0),
    all.length,
  );
  assert.deepEqual([...new Set(day.map((s) => s.start))], [T0, T0 + 24 * HOUR, T0 + 48 * HOUR]);
  const hourly = ledger.reports.stats({ since: T0, until: T0 + 4 * HOUR, bucket: 'hour', by: 'key' });
  assert.deepEqual(
    hourly.map((s) => [s.start, s.group, s.requests]),
    [
      [T0, 'laptop', 1],
      [T0 + HOUR, 'ci', 1],
      [T0 + 2 * HOUR, 'laptop', 1],
      [T0 + 3 * HOUR, 'ci', 1],
    ],
  );
});

test('days can start at local midnight', () => {
  // UTC+2: the local day that starts at 22:00 UTC the evening before.
  const local = ledger.reports.stats({
    since: T0,
    until: T0 + 24 * HOUR,
    bucket: 'day',
    by: 'line',
    tzOffsetMinutes: 120,
  });
  assert.deepEqual([...new Set(local.map((s) => s.start))], [T0 - 2 * HOUR, T0 + 22 * HOUR]);
  assert.equal(
    local.filter((s) => s.start === T0 - 2 * HOUR).reduce((a, s) => a + s.requests, 0),
    22,
  );
});

test('wallet transactions list the top-ups with their notes, newest first, with paging', () => {
  const txs = ledger.reports.walletTransactions({});
  assert.deepEqual(
    txs.map((t) => [t.kind, t.amountMicro, t.note]),
    [
      ['topup', 2_000_000, null],
      ['topup', 5_000_000, 'first'],
    ],
  );
  assert.deepEqual(
    ledger.reports.walletTransactions({ beforeId: txs[0]!.id }).map((t) => t.amountMicro),
    [5_000_000],
  );
});

test('the log filters use indexes, not a scan and a sort of the whole table', () => {
  const db = (ledger.reports as unknown as { db: import('better-sqlite3').Database }).db;
  for (const column of ['key_name', 'model', 'line', 'inbound_protocol']) {
    const plan = (
      db
        .prepare(`EXPLAIN QUERY PLAN SELECT * FROM requests WHERE ${column} = ? ORDER BY id DESC LIMIT 50`)
        .all('x') as { detail: string }[]
    )
      .map((p) => p.detail)
      .join('; ');
    assert.match(plan, /USING INDEX/, `${column}: ${plan}`);
    assert.doesNotMatch(plan, /TEMP B-TREE/, `${column}: ${plan}`);
  }
  // The status filter as the log writes it: any status but 200 reads the index of the rare
  // statuses; 200s are left out of it (most rows), and found by the id order itself.
  for (const status of ['502', '302']) {
    const w = where({ status } as LogFilter);
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM requests ${w.sql} ORDER BY id DESC LIMIT 50`).all(...w.args) as {
        detail: string;
      }[]
    )
      .map((p) => p.detail)
      .join('; ');
    assert.match(plan, /USING INDEX requests_status_rare/, `${status}: ${plan}`);
    assert.doesNotMatch(plan, /TEMP B-TREE/, `${status}: ${plan}`);
  }
  const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'requests'").all();
  assert.ok(!indexes.some((i) => (i as { name: string }).name === 'requests_status'), 'no index of every status');
  const stats = (
    db.prepare('EXPLAIN QUERY PLAN SELECT COUNT(*) FROM requests WHERE ts >= ? AND ts < ?').all(0, 1) as {
      detail: string;
    }[]
  )
    .map((p) => p.detail)
    .join('; ');
  assert.match(stats, /requests_ts/, stats);
});

/** The oracle for stats: the rows in memory, bucketed and summed in JavaScript. */
function oracle(since: number, until: number, bucket: number, by: 'model' | 'key' | 'line', tzMin = 0): string[] {
  const offset = tzMin * 60_000;
  const out = new Map<string, { requests: number; errors: number; cost: number; cache: number }>();
  for (let i = 0; i < ROWS; i++) {
    const r = row(i);
    if (r.ts < since || r.ts >= until) continue;
    const start = Math.floor((r.ts + offset) / bucket) * bucket - offset;
    const group = by === 'model' ? r.model : by === 'key' ? r.keyName : r.line;
    const k = `${start} ${group}`;
    const o = out.get(k) ?? { requests: 0, errors: 0, cost: 0, cache: 0 };
    o.requests++;
    o.errors += r.status >= 400 ? 1 : 0;
    o.cost += r.costMicro;
    o.cache += r.usage.cacheReadTokens;
    out.set(k, o);
  }
  return [...out.entries()].map(([k, o]) => `${k} ${o.requests} ${o.errors} ${o.cost} ${o.cache}`).sort();
}

test('stats are exact for ranges that cut hours, and for time zones that are not whole hours', () => {
  const MIN = 60_000;
  const cases: [number, number, 'hour' | 'day', 'model' | 'key' | 'line', number][] = [
    [T0 + 17 * MIN, T0 + 30 * HOUR + 43 * MIN, 'day', 'model', 0],
    [T0 + 59 * MIN, T0 + 59 * HOUR + 1, 'hour', 'key', 0],
    [T0 - 5 * HOUR, T0 + 100 * HOUR, 'day', 'line', 330],
    [T0 + 90 * MIN, T0 + 50 * HOUR, 'day', 'model', -570],
    [T0 + 10 * MIN, T0 + 20 * MIN, 'hour', 'line', 0],
  ];
  for (const [since, until, bucket, by, tz] of cases) {
    const got = ledger.reports
      .stats({ since, until, bucket, by, tzOffsetMinutes: tz })
      .map((s) => `${s.start} ${s.group} ${s.requests} ${s.errors} ${s.costMicro} ${s.cacheReadTokens}`)
      .sort();
    assert.deepEqual(
      got,
      oracle(since, until, bucket === 'hour' ? HOUR : 24 * HOUR, by, tz),
      `${since}..${until} ${bucket} ${by} tz ${tz}`,
    );
  }
});

test('a ledger without the hourly rollup rebuilds it from its rows when opened', async () => {
  const other = tempDataDir();
  const first = new Ledger(other);
  // The wallet may not go below zero (the ledger's checks): the money the rows spend is there.
  first.topup(1_000_000_000);
  await Promise.all(Array.from({ length: 30 }, (_, i) => first.settle(row(i))));
  const before = first.reports.stats({ since: T0, until: T0 + 30 * HOUR, bucket: 'day', by: 'key' });
  (first.reports as unknown as { db: import('better-sqlite3').Database }).db.exec('DELETE FROM usage_hourly');
  first.close();
  const reopened = new Ledger(other);
  try {
    assert.deepEqual(reopened.reports.stats({ since: T0, until: T0 + 30 * HOUR, bucket: 'day', by: 'key' }), before);
  } finally {
    reopened.close();
    rmSync(other, { recursive: true, force: true });
  }
});
