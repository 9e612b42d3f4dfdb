/**
 * The agent sessions' totals are written with the hourly rollup, apart from the settlements' commits:
 * held in memory at most ROLLUP_EVERY_MS, written at once before the sessions are read and at close,
 * and counted again from the request rows after a crash. Time is the test's own (mocked timers).
 */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { tempDirs } from '../helpers/temp-dirs.js';
import { ledgerRow } from '../helpers/ledger-rows.js';
import { Ledger } from '../../gateway/store/ledger.js';
import { ROLLUP_EVERY_MS } from '../../gateway/store/usage-rollup.js';
import type { SessionRecord } from '../../gateway/store/ledger-sessions.js';

const tempDir = tempDirs('session-totals');

/** The `sessions` rows on disk, read by a connection of its own (no write of held totals first). */
function onDisk(dir: string): SessionRecord[] {
  const db = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
  try {
    return db.prepare<[], SessionRecord>('SELECT * FROM sessions ORDER BY id').all();
  } finally {
    db.close();
  }
}

const T0 = Date.now() - 60_000;

/** Request i of session `id`: cost 10 + i, 100 + i tokens in, i out, an error at i = 3. */
const row = (id: string, i: number) =>
  ledgerRow({
    ts: T0 + i * 10,
    session: id,
    tool: 'codex',
    project: 'proj',
    agent: null,
    status: i === 3 ? 502 : 200,
    costMicro: 10 + i,
    usage: { ...ledgerRow().usage, inputTokens: 100 + i, outputTokens: i, cacheReadTokens: 1 },
  });

/** The totals of requests `from` to `to` - 1 of one session, as the sessions row holds them. */
function expected(id: string, from: number, to: number) {
  const rows = Array.from({ length: to - from }, (_, k) => row(id, from + k));
  return {
    id,
    key_id: 'key_a',
    key_name: 'a',
    tool: 'codex',
    project: 'proj',
    first_ts: rows[0]!.ts,
    last_ts: rows[rows.length - 1]!.ts,
    requests: rows.length,
    errors: rows.filter((r) => r.status >= 400).length,
    prompt_tokens: rows.reduce((n, r) => n + r.usage.inputTokens + r.usage.cacheReadTokens, 0),
    cache_read_tokens: rows.length,
    output_tokens: rows.reduce((n, r) => n + r.usage.outputTokens, 0),
    cost_micro: rows.reduce((n, r) => n + r.costMicro, 0),
    saved_micro: 0,
  };
}

async function settle(ledger: Ledger, id: string, from: number, to: number): Promise<void> {
  await Promise.all(Array.from({ length: to - from }, (_, k) => ledger.settle(row(id, from + k))));
}

test("a settlement's commit writes no session row: the totals are written within ROLLUP_EVERY_MS", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(10_000);
  await settle(ledger, 'sess-a', 0, 4);
  await settle(ledger, 'sess-a', 4, 6);
  assert.deepEqual(onDisk(dir), []);
  t.mock.timers.tick(ROLLUP_EVERY_MS);
  assert.deepEqual(onDisk(dir), [expected('sess-a', 0, 6)]);
  ledger.close();
});

test('the sessions read the totals of requests settled a moment before', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(10_000);
  await settle(ledger, 'tg-000000000001', 0, 5);
  assert.deepEqual({ ...ledger.sessions.get('tg-000000000001') }, expected('tg-000000000001', 0, 5));
  await settle(ledger, 'tg-000000000001', 5, 7);
  assert.equal(ledger.sessions.list({ limit: 10 })[0]!.requests, 7);
  await settle(ledger, 'tg-000000000001', 7, 8);
  assert.equal(ledger.sessions.latestAssignedOf('key_a', 'codex')!.requests, 8);
  ledger.close();
});

test('session totals a crash lost are counted again from the request rows at the next open', async () => {
  const dir = tempDir();
  const first = new Ledger(dir);
  first.topup(10_000);
  await settle(first, 'sess-a', 0, 3);
  first.close();
  const crashed = new Ledger(dir);
  await settle(crashed, 'sess-a', 3, 6);
  await settle(crashed, 'sess-b', 0, 2);
  // The process dies with those totals in memory (no close).
  assert.deepEqual(onDisk(dir), [expected('sess-a', 0, 3)]);
  const next = new Ledger(dir);
  assert.deepEqual(onDisk(dir), [expected('sess-a', 0, 6), expected('sess-b', 0, 2)]);
  next.close();
});

test('rows above the mark whose session totals are already written (an older build wrote both) are not counted twice', async () => {
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(10_000);
  await settle(ledger, 'sess-a', 0, 6);
  ledger.close();
  // An older build writes the session totals in each settlement's commit and leaves the mark behind.
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.prepare('UPDATE usage_rollup_mark SET through_id = 0').run();
  db.close();
  new Ledger(dir).close();
  assert.deepEqual(onDisk(dir), [expected('sess-a', 0, 6)]);
});

test('a session whose first rows retention pruned gets the lost rows added, not counted again from what is left', async () => {
  const dir = tempDir();
  const first = new Ledger(dir);
  first.topup(10_000);
  await settle(first, 'sess-a', 0, 4);
  first.close();
  // Retention removed the session's two oldest rows; its totals keep them.
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.prepare('DELETE FROM requests WHERE id IN (SELECT id FROM requests ORDER BY ts LIMIT 2)').run();
  db.close();
  const crashed = new Ledger(dir);
  await settle(crashed, 'sess-a', 4, 6);
  const next = new Ledger(dir);
  assert.deepEqual(onDisk(dir), [expected('sess-a', 0, 6)]);
  next.close();
});
