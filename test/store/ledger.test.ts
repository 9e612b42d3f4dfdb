/** The ledger on its own: group commit, the money invariant, and the migration of old rows. */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tempDirs } from '../helpers/temp-dirs.js';
import Database from 'better-sqlite3';
import { emptyUsage } from '../../gateway/core/usage.js';
import { ledgerRow, pendingRow } from '../helpers/ledger-rows.js';
import { Ledger } from '../../gateway/store/ledger.js';
import { writeOldLedger } from '../helpers/old-ledger.js';

const tempDir = tempDirs('ledger');

test('rows settled in one turn are committed together, and the wallet and key usage follow them', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(1_000);
  await Promise.all([
    ledger.settle(ledgerRow({ costMicro: 100 })),
    ledger.settle(ledgerRow({ costMicro: 50, keyId: 'key_b', keyName: 'b' })),
    ledger.settle(ledgerRow({ costMicro: 0, keyId: null, keyName: null, status: 401 })),
  ]);
  assert.equal(ledger.balanceMicro(), 850);
  assert.equal(ledger.keyUsageMicro('key_a'), 100);
  assert.equal(ledger.keyUsageMicro('key_b'), 50);
  const inv = ledger.checkInvariant();
  assert.deepEqual([inv.ok, inv.topupsMicro, inv.balanceMicro, inv.loggedCostMicro], [true, 1_000, 850, 150]);
  assert.deepEqual(
    ledger.logs({}).map((e) => [e.costMicro, e.keyName, e.status]),
    [
      [0, null, 401],
      [50, 'b', 200],
      [100, 'a', 200],
    ],
  );
  ledger.close();
});

test('the balance and key usage survive a reopen', async () => {
  const dir = tempDir();
  const first = new Ledger(dir);
  first.topup(500);
  await first.settle(ledgerRow({ costMicro: 123 }));
  first.close();
  const second = new Ledger(dir);
  assert.equal(second.balanceMicro(), 377);
  assert.equal(second.keyUsageMicro('key_a'), 123);
  assert.equal(second.checkInvariant().ok, true);
  second.close();
});

test('a failed commit gives the money back in memory and rejects the settle', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(100);
  // A NOT NULL column left null makes the insert, and so the whole batch, fail.
  const bad = ledger.settle(ledgerRow({ costMicro: 40, inboundProtocol: null as unknown as string }));
  await assert.rejects(bad);
  assert.equal(ledger.balanceMicro(), 100);
  assert.equal(ledger.keyUsageMicro('key_a'), 0);
  assert.equal(ledger.checkInvariant().ok, true);
  ledger.close();
});

test('rows an older build logged as anthropic-messages read as anthropic after the migration', async () => {
  const dir = tempDir();
  const old = new Ledger(dir);
  await old.settle(ledgerRow({ inboundProtocol: 'anthropic-messages', upstreamProtocol: 'anthropic', costMicro: 0 }));
  await old.settle(ledgerRow({ inboundProtocol: 'openai-chat', costMicro: 0 }));
  old.close();
  // What an older build left behind: the old id (written above), and no migration recorded.
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.pragma('user_version = 0');
  db.close();
  const reopened = new Ledger(dir);
  assert.deepEqual(
    reopened
      .logs({})
      .map((e) => e.inboundProtocol)
      .sort(),
    ['anthropic', 'openai-chat'],
  );
  reopened.close();
  const check = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
  // Every step recorded: the rename, the money checks (the rows met them), adjustments allowed.
  assert.equal(check.pragma('user_version', { simple: true }), 3);
  check.close();
});

describe('integers only', () => {
  test('SQLite itself refuses a fractional, negative or float money value, whoever writes it', () => {
    const dir = tempDir();
    new Ledger(dir).close();
    const db = new Database(join(dir, 'ledger.sqlite'));
    for (const bad of [1.5, -1, 8e300]) {
      assert.throws(
        () => db.prepare('UPDATE wallet SET balance_micro = ?').run(bad),
        /CHECK constraint failed/,
        String(bad),
      );
      assert.throws(
        () => db.prepare("INSERT INTO wallet_tx (ts, kind, amount_micro) VALUES (1, 'topup', ?)").run(bad),
        /CHECK constraint failed/,
        String(bad),
      );
      assert.throws(
        () => db.prepare('INSERT INTO key_usage VALUES (?, ?, 1)').run('k', bad),
        /CHECK constraint failed/,
        String(bad),
      );
    }
    db.close();
  });

  test('a row with a non-integer or negative figure is refused before the write, never thrown, and kept for the doctor', async () => {
    const ledger = new Ledger(tempDir());
    ledger.topup(1_000);
    for (const bad of [
      ledgerRow({ costMicro: 1.5 }),
      ledgerRow({ costMicro: -8_000_000_000 }),
      ledgerRow({ usage: { ...emptyUsage(), outputTokens: 1e300 } }),
      ledgerRow({ unchargedMicro: -1 }),
    ]) {
      await assert.rejects(ledger.settle(bad), /refused/);
    }
    assert.equal(ledger.writeFailure()?.count, 4);
    assert.equal(ledger.balanceMicro(), 1_000);
    assert.equal(ledger.logs({}).length, 0);
    assert.equal(ledger.checkInvariant().ok, true);
    assert.throws(() => ledger.topup(0.5), RangeError);
    assert.throws(() => ledger.topup(-5), RangeError);
    ledger.close();
  });

  test('an older ledger gets the checks, its rows and indexes kept', () => {
    const dir = writeOldLedger(tempDir(), 7, 993);
    const ledger = new Ledger(dir);
    assert.deepEqual(
      ledger.logs({}).map((e) => [e.requestId, e.costMicro, e.unchargedMicro, e.usage.cacheWrite1hTokens]),
      [['req_old', 7, 0, 0]],
    );
    assert.equal(ledger.checkInvariant().ok, true);
    ledger.close();
    const db = new Database(join(dir, 'ledger.sqlite'));
    assert.equal(db.pragma('user_version', { simple: true }), 3);
    assert.throws(() => db.prepare('UPDATE requests SET cost_micro = -1').run(), /CHECK constraint failed/);
    assert.throws(() => db.prepare('UPDATE wallet SET balance_micro = 0.5').run(), /CHECK constraint failed/);
    const indexes = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'requests'").all() as {
        name: string;
      }[]
    ).map((i) => i.name);
    assert.ok(
      indexes.includes('requests_ts') &&
        indexes.includes('requests_key') &&
        !indexes.includes('requests_key_ts') &&
        // The index of every status gives way to the one that leaves out the 200s.
        indexes.includes('requests_status_rare') &&
        !indexes.includes('requests_status'),
      indexes.join(),
    );
    db.close();
  });

  test('an older ledger that already holds a negative cost and a float balance is left as it is, and its problems are named', () => {
    const dir = writeOldLedger(tempDir(), -8_000_000_000, -8e300);
    const ledger = new Ledger(dir);
    const p = ledger.problems(new Map());
    assert.equal(p.badBalance, -8e300);
    assert.deepEqual(p.badRows, { count: 1, requestIds: ['req_old'] });
    ledger.close();
    const db = new Database(join(dir, 'ledger.sqlite'));
    assert.equal(db.pragma('user_version', { simple: true }), 1, 'the checks wait until the rows meet them');
    db.close();
  });
});

describe('pending rows', () => {
  const pending = (requestId: string) => pendingRow(requestId, { stream: true, heldMicro: 500 });

  test('a request admitted by a gateway that stopped before settling it is named by the doctor, then closed as interrupted at the next start', async () => {
    const dir = tempDir();
    const first = new Ledger(dir);
    first.topup(10_000);
    first.open(pending('req_cut'));
    first.open(pending('req_done'));
    await first.settle(ledgerRow({ requestId: 'req_done', costMicro: 40 }));
    assert.equal(first.problems(new Map()).unsettled.count, 0, 'in flight in this process');
    first.close(); // the crash: req_cut never settled

    const second = new Ledger(dir);
    assert.deepEqual(second.problems(new Map()).unsettled, { count: 1, requestIds: ['req_cut'] });
    assert.equal(second.closeInterrupted(), 1);
    assert.equal(second.problems(new Map()).unsettled.count, 0);
    const cut = second.logs({}).find((e) => e.requestId === 'req_cut')!;
    assert.deepEqual([cut.status, cut.errorCode, cut.costMicro, cut.stream], [500, 'gateway_interrupted', 0, true]);
    assert.match(cut.errorMessage ?? '', /500 micro-USD held for it were released and nothing was charged/);
    assert.equal(second.checkInvariant().ok, true);
    assert.equal(second.balanceMicro(), 10_000 - 40);
    second.close();
  });
});

test('a key over its quota by more than its largest request is named', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(10_000);
  await Promise.all([ledger.settle(ledgerRow({ costMicro: 300 })), ledger.settle(ledgerRow({ costMicro: 400 }))]);
  // 700 used: within one request (400) of a 300 quota, but not of a 299 one.
  assert.deepEqual(ledger.problems(new Map([['key_a', 299]])).overQuota, [
    { keyId: 'key_a', usedMicro: 700, quotaMicro: 299, largestMicro: 400 },
  ]);
  assert.deepEqual(ledger.problems(new Map([['key_a', 300]])).overQuota, []);
  ledger.close();
});

test('a row keeps the prices and multiplier it was billed at; a ledger from before the snapshot gains the columns, its rows reading as unexplained', async () => {
  const dir = tempDir();
  // A requests table as builds before the price snapshot made it (no prices_json, no multiplier_ppm).
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.exec(`CREATE TABLE requests (id INTEGER PRIMARY KEY, request_id TEXT NOT NULL, ts INTEGER NOT NULL, key_id TEXT, key_name TEXT,
    model TEXT, upstream_model TEXT, line TEXT, inbound_protocol TEXT NOT NULL, upstream_protocol TEXT, stream INTEGER NOT NULL,
    status INTEGER NOT NULL, error_code TEXT, error_message TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
    audio_input_tokens INTEGER NOT NULL, image_input_tokens INTEGER NOT NULL, usage_estimated INTEGER NOT NULL,
    cost_micro INTEGER NOT NULL, latency_ms INTEGER NOT NULL, ttfb_ms INTEGER, notes TEXT, served_model TEXT, attempts INTEGER NOT NULL DEFAULT 0);
    INSERT INTO requests VALUES (1, 'req_old', 1, 'key_a', 'a', 'gpt-4o', 'gpt-4o', 'openai', 'openai-chat', 'openai-chat', 0, 200, NULL, NULL,
    10, 5, 0, 0, 0, 0, 0, 0, 7, 30, NULL, NULL, 'gpt-4o', 1);`);
  db.pragma('user_version = 1');
  db.close();
  const ledger = new Ledger(dir);
  ledger.topup(10_000);
  const billedAt = {
    prices: { input: 2_500_000, output: 10_000_000, cacheRead: 1_250_000, cacheWrite: 0 },
    multiplierPpm: 800_000,
  };
  await ledger.settle(
    ledgerRow({
      requestId: 'req_new',
      usage: { ...emptyUsage(), inputTokens: 1000, outputTokens: 100 },
      costMicro: 2_800,
      billedAt,
    }),
  );
  const [fresh, old] = ledger.logs({});
  assert.deepEqual([old?.requestId, old?.billedAt, old?.breakdown, old?.costMicro], ['req_old', null, null, 7]);
  assert.deepEqual(fresh?.billedAt, billedAt);
  assert.equal(fresh?.breakdown?.formula, '1000 input × $2.5/M + 100 output × $10/M = $0.0035 × 0.8 = $0.0028');
  assert.equal(fresh?.breakdown?.costMicro, fresh?.costMicro);
  ledger.close();
});

test('the invariant counts adjustments beside top-ups: top-ups + adjustments − balance = Σ logged costs', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(1_000, 'first');
  await ledger.settle(ledgerRow({ costMicro: 100 }));
  ledger.adjust(-200, 'top-up entered twice');
  ledger.adjust(50, 'credit');
  await ledger.settle(ledgerRow({ costMicro: 30, keyId: 'key_b', keyName: 'b' }));
  assert.equal(ledger.balanceMicro(), 720);
  const inv = ledger.checkInvariant();
  assert.deepEqual(
    [inv.ok, inv.topupsMicro, inv.adjustmentsMicro, inv.balanceMicro, inv.loggedCostMicro],
    [true, 1_000, -150, 720, 130],
  );
  assert.deepEqual(
    ledger.reports.walletTransactions({}).map((t) => [t.kind, t.amountMicro, t.note]),
    [
      ['adjustment', 50, 'credit'],
      ['adjustment', -200, 'top-up entered twice'],
      ['topup', 1_000, 'first'],
    ],
  );
  ledger.close();
  // The same figures read back from disk, and a balance changed behind the ledger's back is caught.
  const dir = tempDir();
  const l2 = new Ledger(dir);
  l2.topup(500);
  l2.adjust(-100, 'fix');
  l2.close();
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.prepare('UPDATE wallet SET balance_micro = balance_micro + 1').run();
  db.close();
  const l3 = new Ledger(dir);
  assert.equal(l3.checkInvariant().ok, false);
  l3.close();
});

test('retention prunes old rows into daily totals: the invariant, key usage and hourly stats still add up', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(10_000);
  const day = 86_400_000;
  const now = Date.now();
  const old = now - 40 * day;
  await Promise.all([
    ledger.settle(ledgerRow({ ts: old, costMicro: 100 })),
    ledger.settle(ledgerRow({ ts: old + 1_000, costMicro: 40, keyId: 'key_b', keyName: 'b' })),
    ledger.settle(ledgerRow({ ts: old - day, costMicro: 5, keyId: null, keyName: null, status: 401 })),
    ledger.settle(ledgerRow({ ts: now, costMicro: 7 })),
  ]);
  ledger.adjust(-1_000, 'correction');
  const statsBefore = ledger.reports.stats({ since: old - 2 * day, until: now + day, bucket: 'day', by: 'key' });
  const pruned = ledger.prune(now - 30 * day);
  assert.deepEqual(pruned, { rows: 3, costMicro: 145 });
  assert.deepEqual(
    ledger.logs({}).map((e) => e.costMicro),
    [7],
  );
  const inv = ledger.checkInvariant();
  assert.deepEqual([inv.ok, inv.loggedCostMicro, inv.prunedCostMicro, inv.keyMismatches], [true, 152, 145, []]);
  assert.equal(ledger.keyUsageMicro('key_a'), 107);
  // A second prune at a later cut-off adds to the same days, and money is still whole.
  await ledger.settle(ledgerRow({ ts: old + 2_000, costMicro: 3 }));
  ledger.prune(now - 30 * day);
  assert.deepEqual([ledger.checkInvariant().ok, ledger.checkInvariant().prunedCostMicro], [true, 148]);
  const statsAfter = ledger.reports.stats({ since: old - 2 * day, until: now + day, bucket: 'day', by: 'key' });
  const total = (rows: { costMicro: number }[]): number => rows.reduce((s, r) => s + r.costMicro, 0);
  assert.equal(total(statsAfter), total(statsBefore) + 3, 'the hourly totals behind the charts are kept');
  ledger.close();
});

test('a ledger whose wallet_tx allowed only top-ups takes adjustments after the migration, rows kept', () => {
  const dir = tempDir();
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.exec(`CREATE TABLE wallet_tx (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('topup')), amount_micro INTEGER NOT NULL, note TEXT);
    CREATE TABLE wallet (id INTEGER PRIMARY KEY CHECK (id = 1), balance_micro INTEGER NOT NULL);
    INSERT INTO wallet VALUES (1, 900);
    INSERT INTO wallet_tx (id, ts, kind, amount_micro, note) VALUES (7, 1, 'topup', 900, 'old');`);
  db.pragma('user_version = 1');
  db.close();
  const ledger = new Ledger(dir);
  ledger.adjust(-400, 'refund');
  assert.deepEqual(
    ledger.reports.walletTransactions({}).map((t) => [t.id, t.kind, t.amountMicro]),
    [
      [8, 'adjustment', -400],
      [7, 'topup', 900],
    ],
  );
  assert.equal(ledger.checkInvariant().ok, true);
  ledger.close();
});
