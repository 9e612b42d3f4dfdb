/**
 * Stats by who sent the request (tool, project, agent session) as well as by model, key and line,
 * and the largest groups of a range with its totals: exact against the rows summed in memory, from
 * the hourly rollup plus the partial hours at the ends, and rebuilt for a ledger whose rollup
 * predates the newer groupings.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Ledger, type RequestRow } from '../../gateway/store/ledger.js';
import type { StatsGroup } from '../../gateway/store/ledger-reports.js';
import { tempDataDir } from '../helpers/gateway.js';

const dir = tempDataDir();
let ledger: Ledger;
const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);
const HOUR = 3_600_000;
const MIN = 60_000;
const ROWS = 90;

const TOOLS = ['claude-code', 'codex', 'gemini-cli', null] as const;

function row(i: number): RequestRow {
  return {
    requestId: `req_${i}`,
    // Several rows an hour, at minutes that do not line up with the hours.
    ts: T0 + i * 23 * MIN,
    keyId: `key_${i % 2}`,
    keyName: i % 2 ? 'ci' : 'laptop',
    model: i % 3 ? 'gpt-4o' : 'claude-sonnet-4-6',
    servedModel: null,
    upstreamModel: null,
    line: 'openai',
    attempts: 1,
    inboundProtocol: 'openai-chat',
    upstreamProtocol: 'openai-chat',
    stream: false,
    status: i % 7 ? 200 : 502,
    errorCode: null,
    errorMessage: null,
    usage: {
      inputTokens: 10 + i,
      outputTokens: 5,
      cacheReadTokens: i % 4 ? i * 3 : 0,
      cacheWriteTokens: i % 5 ? 0 : 7,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: i % 7 ? 100 + i * 11 : 0,
    unchargedMicro: 0,
    latencyMs: 10,
    ttfbMs: 5,
    notes: null,
    billedAt: null,
    session: TOOLS[i % 4] === null ? null : `sess-${Math.floor(i / 30)}-${i % 4}`,
    agent: null,
    tool: TOOLS[i % 4] ?? null,
    project: TOOLS[i % 4] === null ? null : i % 3 ? 'tollgate' : 'website',
    savedMicro: 0,
  };
}

function groupOf(r: RequestRow, by: StatsGroup): string | null {
  const v = { model: r.model, key: r.keyName, line: r.line, tool: r.tool, project: r.project, session: r.session }[by];
  return v ?? null;
}

/** The rows in memory, bucketed (0: one bucket for the whole range) and summed in JavaScript. */
function oracle(since: number, until: number, bucket: number, by: StatsGroup, tzMin = 0): string[] {
  const offset = tzMin * 60_000;
  const out = new Map<string, number[]>();
  for (let i = 0; i < ROWS; i++) {
    const r = row(i);
    if (r.ts < since || r.ts >= until) continue;
    const start = bucket === 0 ? 0 : Math.floor((r.ts + offset) / bucket) * bucket - offset;
    const k = `${start} ${groupOf(r, by)}`;
    const o = out.get(k) ?? [0, 0, 0, 0, 0, 0];
    o[0]! += 1;
    o[1]! += r.status >= 400 ? 1 : 0;
    o[2]! += r.costMicro;
    o[3]! += r.usage.inputTokens;
    o[4]! += r.usage.cacheReadTokens;
    o[5]! += r.usage.cacheWriteTokens;
    out.set(k, o);
  }
  return [...out.entries()].map(([k, o]) => `${k} ${o.join(' ')}`).sort();
}

before(async () => {
  ledger = new Ledger(dir);
  ledger.topup(1_000_000_000, 'first');
  await Promise.all(Array.from({ length: ROWS }, (_, i) => ledger.settle(row(i))));
});

after(() => {
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

const CASES: [number, number, 'hour' | 'day', StatsGroup, number][] = [
  [T0 + 17 * MIN, T0 + 30 * HOUR + 43 * MIN, 'hour', 'tool', 0],
  [T0, T0 + 3 * 24 * HOUR, 'day', 'project', 60],
  [T0 + 59 * MIN, T0 + 20 * HOUR + 1, 'hour', 'session', 0],
  [T0 - 5 * HOUR, T0 + 40 * HOUR, 'day', 'session', 330],
  [T0 + 5 * HOUR, T0 + 9 * HOUR, 'hour', 'model', 0],
];

test('stats group by tool, project and session as exactly as by model, key and line', () => {
  for (const [since, until, bucket, by, tz] of CASES) {
    const got = ledger.reports
      .stats({ since, until, bucket, by, tzOffsetMinutes: tz })
      .map(
        (s) =>
          `${s.start} ${s.group} ${s.requests} ${s.errors} ${s.costMicro} ${s.inputTokens} ${s.cacheReadTokens} ${s.cacheWriteTokens}`,
      )
      .sort();
    assert.deepEqual(got, oracle(since, until, bucket === 'hour' ? HOUR : 24 * HOUR, by, tz), `${by} ${bucket}`);
  }
});

test('top lists the largest spenders of a range first, with the totals of the whole range', () => {
  for (const [since, until, , by] of CASES) {
    const top = ledger.reports.top({ since, until, by, limit: 3 });
    const all = oracle(since, until, 0, by).map((line) => line.split(' '));
    assert.equal(top.groups, all.length, by);
    const wanted = all
      .map((p) => ({ group: p[1] === 'null' ? null : p[1]!, requests: Number(p[2]), costMicro: Number(p[4]) }))
      .sort(
        (a, b) => b.costMicro - a.costMicro || b.requests - a.requests || (a.group ?? '').localeCompare(b.group ?? ''),
      )
      .slice(0, 3);
    assert.deepEqual(
      top.rows.map((r) => ({ group: r.group, requests: r.requests, costMicro: r.costMicro })),
      wanted,
      by,
    );
    const sum = (n: number): number => all.reduce((s, p) => s + Number(p[n]), 0);
    assert.deepEqual(
      [top.total.requests, top.total.errors, top.total.costMicro, top.total.inputTokens, top.total.cacheReadTokens],
      [sum(2), sum(3), sum(4), sum(5), sum(6)],
      by,
    );
  }
  // The totals are the same whatever the grouping: every row is counted in every dimension.
  const totals = (['model', 'key', 'tool', 'project', 'session'] as const).map(
    (by) => ledger.reports.top({ since: T0, until: T0 + 40 * HOUR, by, limit: 1 }).total,
  );
  for (const t of totals) assert.deepEqual(t, totals[0]);
  const empty = ledger.reports.top({ since: T0 - 10 * HOUR, until: T0 - 5 * HOUR, by: 'model', limit: 5 });
  assert.deepEqual(empty, {
    total: {
      requests: 0,
      errors: 0,
      costMicro: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    },
    rows: [],
    groups: 0,
  });
});

test('a rollup written before tool, project and session existed gains them when the ledger opens', async () => {
  const other = tempDataDir();
  const first = new Ledger(other);
  first.topup(1_000_000_000);
  await Promise.all(Array.from({ length: 40 }, (_, i) => first.settle(row(i))));
  const q = { since: T0, until: T0 + 16 * HOUR, bucket: 'hour', tzOffsetMinutes: 0 } as const;
  const want = (['model', 'tool', 'project', 'session'] as const).map((by) => first.reports.stats({ ...q, by }));
  const db = (first.reports as unknown as { db: import('better-sqlite3').Database }).db;
  db.exec(`DELETE FROM usage_hourly WHERE dim IN ('tool', 'project', 'session')`);
  const models = db.prepare(`SELECT COUNT(*) AS n FROM usage_hourly WHERE dim = 'model'`).get() as { n: number };
  first.close();
  const reopened = new Ledger(other);
  try {
    const got = (['model', 'tool', 'project', 'session'] as const).map((by) => reopened.reports.stats({ ...q, by }));
    assert.deepEqual(got, want);
    const db2 = (reopened.reports as unknown as { db: import('better-sqlite3').Database }).db;
    // The dimension that was there is left as it was, not counted twice.
    assert.deepEqual(db2.prepare(`SELECT COUNT(*) AS n FROM usage_hourly WHERE dim = 'model'`).get(), models);
  } finally {
    reopened.close();
    rmSync(other, { recursive: true, force: true });
  }
});

test('a rollup keyed by dimension first (older builds) is rekeyed by hour first when the ledger opens, its totals kept', async () => {
  const other = tempDataDir();
  const first = new Ledger(other);
  first.topup(1_000_000_000);
  await Promise.all(Array.from({ length: 40 }, (_, i) => first.settle(row(i))));
  const q = { since: T0, until: T0 + 16 * HOUR, bucket: 'hour', tzOffsetMinutes: 0 } as const;
  const dims = ['model', 'key', 'line', 'tool', 'project', 'session'] as const;
  const want = dims.map((by) => first.reports.stats({ ...q, by }));
  const db = (first.reports as unknown as { db: import('better-sqlite3').Database }).db;
  const all = 'SELECT * FROM usage_hourly ORDER BY dim, hour, value';
  const rows = db.prepare(all).all();
  // The table as older builds made it: the same columns, keyed (dim, hour, value).
  db.exec(`ALTER TABLE usage_hourly RENAME TO usage_hourly_new;
    CREATE TABLE usage_hourly (dim TEXT NOT NULL, value TEXT NOT NULL, hour INTEGER NOT NULL, requests INTEGER NOT NULL,
      errors INTEGER NOT NULL, cost_micro INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
      cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, PRIMARY KEY (dim, hour, value)) WITHOUT ROWID;
    INSERT INTO usage_hourly SELECT * FROM usage_hourly_new;
    DROP TABLE usage_hourly_new;`);
  first.close();
  const reopened = new Ledger(other);
  try {
    const db2 = (reopened.reports as unknown as { db: import('better-sqlite3').Database }).db;
    const key = db2
      .prepare<[], { name: string; pk: number }>('PRAGMA table_info(usage_hourly)')
      .all()
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    assert.deepEqual(key, ['hour', 'dim', 'value']);
    assert.deepEqual(db2.prepare(all).all(), rows);
    assert.deepEqual(
      dims.map((by) => reopened.reports.stats({ ...q, by })),
      want,
    );
    // An older build's upsert, which names the old key, still finds its row (the ledger opens in it).
    db2
      .prepare(
        `INSERT INTO usage_hourly (dim, value, hour, requests, errors, cost_micro, input_tokens, output_tokens,
          cache_read_tokens, cache_write_tokens) VALUES ('line', 'openai', ?, 0, 0, 0, 0, 0, 0, 0)
        ON CONFLICT (dim, hour, value) DO UPDATE SET requests = requests + excluded.requests`,
      )
      .run(T0);
    assert.deepEqual(db2.prepare(all).all(), rows);
    // New settlements add to the rekeyed rows.
    await reopened.settle(row(3));
    const after = reopened.reports.stats({ ...q, by: 'model' });
    const total = (s: typeof after): number => s.reduce((n, r) => n + r.requests, 0);
    assert.equal(total(after), total(want[0]!) + 1);
  } finally {
    reopened.close();
    rmSync(other, { recursive: true, force: true });
  }
});
