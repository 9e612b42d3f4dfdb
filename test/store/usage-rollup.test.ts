/**
 * The hourly totals are written apart from the settlements' commits: held in memory at most
 * ROLLUP_EVERY_MS, written at once before the stats read them and at close, and made good from the
 * request rows after a crash. Time is the test's own (mocked timers), never waited for.
 */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDirs } from '../helpers/temp-dirs.js';
import Database from 'better-sqlite3';
import { ledgerRow } from '../helpers/ledger-rows.js';
import { Ledger } from '../../gateway/store/ledger.js';
import { HOUR_MS, ROLLUP_EVERY_MS } from '../../gateway/store/usage-rollup.js';

const tempDir = tempDirs('usage-rollup');

/** The rollup's rows on disk, read by a connection of its own. */
function rollupRows(dir: string): number {
  const db = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
  try {
    return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM usage_hourly').get()!.n;
  } finally {
    db.close();
  }
}

/** Three whole hours, ending two hours ago: every figure of the stats below comes from the rollup. */
const HOUR = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 3 * HOUR_MS;
const RANGE = { since: HOUR - HOUR_MS, until: HOUR + 2 * HOUR_MS, bucket: 'hour' as const };

/** 12 rows over two hours and two models: 4 of a-model and 2 of b-model each hour. */
const rows = () =>
  Array.from({ length: 12 }, (_, i) =>
    ledgerRow({ ts: HOUR + (i % 2) * HOUR_MS + i, model: i % 3 ? 'a-model' : 'b-model', costMicro: 10 + i }),
  );

const byModel = (ledger: Ledger) =>
  ledger.reports.stats({ ...RANGE, by: 'model' }).map((r) => [r.start, r.group, r.requests, r.costMicro]);

/** Hour 0: a-model rows 2, 4, 8, 10 and b-model rows 0, 6; hour 1: a-model 1, 5, 7, 11 and b-model 3, 9 (cost 10 + i). */
const EXPECTED = [
  [HOUR, 'a-model', 4, 12 + 14 + 18 + 20],
  [HOUR, 'b-model', 2, 10 + 16],
  [HOUR + HOUR_MS, 'a-model', 4, 11 + 15 + 17 + 21],
  [HOUR + HOUR_MS, 'b-model', 2, 13 + 19],
];

test('a settlement commits no rollup row: the totals are written within ROLLUP_EVERY_MS, in one go', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(10_000);
  await Promise.all(rows().map((r) => ledger.settle(r)));
  assert.equal(rollupRows(dir), 0);
  t.mock.timers.tick(ROLLUP_EVERY_MS - 1);
  assert.equal(rollupRows(dir), 0);
  t.mock.timers.tick(1);
  // Six dimensions: 2 hours × 2 models, and 2 hours × one value of each of the other five.
  assert.equal(rollupRows(dir), 4 + 5 * 2);
  assert.deepEqual(byModel(ledger), EXPECTED);
  ledger.close();
});

test('the stats read the totals of rows settled a moment before', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(10_000);
  await Promise.all(rows().map((r) => ledger.settle(r)));
  assert.deepEqual(byModel(ledger), EXPECTED);
  await ledger.settle(ledgerRow({ ts: HOUR + 5, model: 'c-model', costMicro: 1 }));
  assert.deepEqual(
    byModel(ledger).filter((r) => r[1] === 'c-model'),
    [[HOUR, 'c-model', 1, 1]],
  );
  ledger.close();
});

test('totals a crash lost are summed again from the request rows at the next open', async () => {
  const dir = tempDir();
  const crashed = new Ledger(dir);
  crashed.topup(10_000);
  await Promise.all(rows().map((r) => crashed.settle(r)));
  // The process dies with the totals in memory (no close): the next open finds rows above the mark.
  assert.equal(rollupRows(dir), 0);
  const next = new Ledger(dir);
  assert.deepEqual(byModel(next), EXPECTED);
  assert.equal(next.checkInvariant().ok, true);
  next.close();
});

test('rows above the mark whose totals are already in the rollup (an older build wrote both) are not counted twice', async () => {
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(10_000);
  await Promise.all(rows().map((r) => ledger.settle(r)));
  ledger.close();
  // An older build keeps the rollup in each settlement's commit and knows nothing of the mark.
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.prepare('UPDATE usage_rollup_mark SET through_id = 0').run();
  db.close();
  const reopened = new Ledger(dir);
  assert.deepEqual(byModel(reopened), EXPECTED);
  reopened.close();
});

test('the totals held over several commits are the rows summed, per dimension, hour and value', async () => {
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(100_000);
  // The same text as a value of several dimensions, a value missing (under ''), an error, two hours.
  const spread = (i: number) =>
    ledgerRow({
      ts: HOUR + (i % 2) * HOUR_MS + i,
      model: i % 3 ? 'same' : 'b-model',
      keyName: i % 4 ? 'same' : 'k2',
      line: 'same',
      tool: i % 2 ? 'codex' : null,
      project: null,
      session: i % 5 ? 'same' : 'tg-other',
      status: i === 7 ? 502 : 200,
      costMicro: 10 + i,
      usage: { ...ledgerRow().usage, inputTokens: 100 + i, outputTokens: i, cacheReadTokens: i % 3 },
    });
  for (let commit = 0; commit < 3; commit++)
    await Promise.all(Array.from({ length: 7 }, (_, j) => ledger.settle(spread(commit * 7 + j))));
  ledger.close();
  const db = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
  try {
    const held = db
      .prepare(
        `SELECT dim, value, hour, requests, errors, cost_micro, input_tokens, output_tokens, cache_read_tokens
         FROM usage_hourly ORDER BY dim, hour, value`,
      )
      .all();
    const columns = {
      model: 'model',
      key: 'key_name',
      line: 'line',
      tool: 'tool',
      project: 'project',
      session: 'session',
    };
    const summed = Object.entries(columns).flatMap(([dim, column]) =>
      db
        .prepare(
          `SELECT '${dim}' AS dim, COALESCE(${column}, '') AS value, (ts / ${HOUR_MS}) * ${HOUR_MS} AS hour,
             COUNT(*) AS requests, SUM(status >= 400) AS errors, SUM(cost_micro) AS cost_micro,
             SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens
           FROM requests GROUP BY 2, 3 ORDER BY 3, 2`,
        )
        .all(),
    );
    const order = (rs: unknown[]) =>
      (rs as Record<string, string | number>[]).sort((a, b) =>
        `${a.dim}\0${a.hour}\0${a.value}` < `${b.dim}\0${b.hour}\0${b.value}` ? -1 : 1,
      );
    // Hour 0: model 2, key 2, line, tool (''), project (''), session 2; hour 1 the same but one key.
    assert.equal(held.length, 9 + 8);
    assert.deepEqual(order(held), order(summed));
  } finally {
    db.close();
  }
});
