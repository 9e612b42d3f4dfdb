/**
 * The group commit isolates each entry: rows settled in one event-loop turn share a transaction,
 * but one that cannot be written fails alone, with its own error, and the others are committed as
 * if it had not been there. And the wallet's holds: an adjustment may not take money held for
 * requests in flight.
 */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tempDirs } from '../helpers/temp-dirs.js';
import Database from 'better-sqlite3';
import { GatewayError } from '../../gateway/core/errors.js';
import { emptyUsage } from '../../gateway/core/usage.js';
import { ledgerRow, pendingRow } from '../helpers/ledger-rows.js';
import { Ledger } from '../../gateway/store/ledger.js';

const tempDir = tempDirs('ledger-batch');

/** What each settle of a batch came to: 'ok', or its error's message. */
function outcomes(promises: Promise<void>[]): Promise<string[]> {
  return Promise.all(
    promises.map((p) =>
      p.then(
        () => 'ok',
        (err: Error) => err.message,
      ),
    ),
  );
}

describe('one entry never sinks the batch', () => {
  test('a row whose text field is not text (a model id that read a function off Object.prototype) is refused before the batch, alone', async () => {
    const ledger = new Ledger(tempDir());
    ledger.topup(10_000);
    const poisoned = ledgerRow({ upstreamModel: Object.prototype.constructor as unknown as string });
    const settles = [
      ledgerRow({ costMicro: 100 }),
      poisoned,
      ledgerRow({ costMicro: 50, keyId: 'key_b', keyName: 'b' }),
    ].map((r) => ledger.settle(r));
    const results = await outcomes(settles);
    assert.equal(results[0], 'ok');
    assert.match(results[1]!, /refused: upstreamModel is function, not text/);
    assert.equal(results[2], 'ok');
    assert.deepEqual(
      ledger.logs({}).map((e) => e.costMicro),
      [50, 100],
    );
    assert.equal(ledger.balanceMicro(), 10_000 - 150);
    assert.equal(ledger.keyUsageMicro('key_a'), 100);
    assert.equal(ledger.checkInvariant().ok, true);
    assert.equal(ledger.writeFailure()?.count, 1);
    ledger.close();
  });

  test('an entry SQLite refuses at the write fails alone: the rest of its turn is committed, and it gets its own error', async () => {
    const dir = tempDir();
    new Ledger(dir).close();
    // Any refusal at the write, whatever its cause: a trigger refuses one request id.
    const db = new Database(join(dir, 'ledger.sqlite'));
    db.exec(`CREATE TRIGGER poison BEFORE INSERT ON requests WHEN NEW.request_id = 'req_poison'
      BEGIN SELECT RAISE(ABORT, 'this row is poisoned'); END;`);
    db.close();
    const ledger = new Ledger(dir);
    ledger.topup(10_000);
    const rows = Array.from({ length: 30 }, (_, i) =>
      ledgerRow({ requestId: i === 11 ? 'req_poison' : `req_ok_${i}`, costMicro: 10 + i }),
    );
    for (const r of rows) ledger.open(pendingRow(r.requestId));
    const results = await outcomes(rows.map((r) => ledger.settle(r)));
    results.forEach((r, i) =>
      i === 11 ? assert.match(r, /this row is poisoned/) : assert.equal(r, 'ok', rows[i]!.requestId),
    );
    const written = ledger.logs({ limit: 100 });
    assert.equal(written.length, 29);
    assert.ok(!written.some((e) => e.requestId === 'req_poison'));
    const charged = rows.reduce((s, r, i) => (i === 11 ? s : s + r.costMicro), 0);
    assert.equal(ledger.balanceMicro(), 10_000 - charged, 'the poisoned row gave its money back');
    assert.equal(ledger.keyUsageMicro('key_a'), charged);
    assert.equal(ledger.checkInvariant().ok, true);
    // The committed rows' pending entries are closed; the poisoned one's stays for the doctor.
    assert.deepEqual(ledger.problems(new Map()).unsettled, { count: 1, requestIds: ['req_poison'] });
    ledger.close();
    const reopened = new Ledger(dir);
    assert.deepEqual(reopened.problems(new Map()).unsettled, { count: 1, requestIds: ['req_poison'] });
    assert.equal(reopened.balanceMicro(), 10_000 - charged);
    reopened.close();
  });

  test('the hourly totals of a batch equal those of the same rows settled one by one', async () => {
    const batched = new Ledger(tempDir());
    const single = new Ledger(tempDir());
    batched.topup(100_000);
    single.topup(100_000);
    const hour = 3_600_000;
    const base = Math.floor(Date.now() / hour) * hour;
    const rows = Array.from({ length: 40 }, (_, i) =>
      ledgerRow({
        ts: base - (i % 3) * hour + i,
        model: i % 2 ? 'a-model' : 'b-model',
        keyName: i % 5 ? 'k1' : null,
        line: i % 7 ? 'l1' : 'l2',
        status: i % 4 ? 200 : 502,
        costMicro: i,
        usage: { ...emptyUsage(), inputTokens: i, outputTokens: 2 * i, cacheReadTokens: 1, cacheWriteTokens: i % 2 },
      }),
    );
    await Promise.all(rows.map((r) => batched.settle({ ...r })));
    for (const r of rows) await single.settle({ ...r });
    for (const by of ['model', 'key', 'line'] as const) {
      const q = { since: base - 4 * hour, until: base + hour, bucket: 'hour' as const, by };
      assert.deepEqual(batched.reports.stats(q), single.reports.stats(q), by);
    }
    batched.close();
    single.close();
  });

  test('a pending row that is not text where text belongs is refused alone, and its request still settles', async () => {
    const ledger = new Ledger(tempDir());
    ledger.topup(1_000);
    ledger.open(pendingRow('req_bad_open', { model: (() => 1) as unknown as string }));
    ledger.open(pendingRow('req_fine'));
    await outcomes([
      ledger.settle(ledgerRow({ requestId: 'req_bad_open' })),
      ledger.settle(ledgerRow({ requestId: 'req_fine' })),
    ]);
    assert.equal(ledger.logs({}).length, 2);
    assert.equal(ledger.checkInvariant().ok, true);
    assert.equal(ledger.problems(new Map()).unsettled.count, 0);
    ledger.close();
  });

  test('a row that would take the balance below zero is refused before the batch, alone', async () => {
    const ledger = new Ledger(tempDir());
    ledger.topup(100);
    const results = await outcomes([
      ledger.settle(ledgerRow({ costMicro: 60 })),
      ledger.settle(ledgerRow({ costMicro: 60 })),
    ]);
    assert.deepEqual(results[0], 'ok');
    assert.match(results[1]!, /refused: cost 60 is more than the balance of 40/);
    assert.equal(ledger.balanceMicro(), 40);
    assert.equal(ledger.checkInvariant().ok, true);
    ledger.close();
  });
});

describe('adjustments respect holds', () => {
  test('a negative adjustment may take the free balance, never what is held for requests in flight', async () => {
    const ledger = new Ledger(tempDir());
    let held = 300;
    ledger.bindHolds(() => held);
    ledger.topup(1_000);
    const refused = (() => {
      try {
        ledger.adjust(-701, 'top-up entered twice');
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    assert.ok(refused instanceof GatewayError && refused.status === 400, String(refused));
    assert.match(
      refused.message,
      /\$0\.0003 of the balance of \$0\.001 is held for requests in flight: an adjustment may take at most \$0\.0007/,
    );
    assert.equal(ledger.balanceMicro(), 1_000);
    assert.equal(ledger.adjust(-700, 'top-up entered twice'), 300);
    // The requests in flight settle at their holds: the balance reaches 0 and never passes it.
    await ledger.settle(ledgerRow({ costMicro: 300 }));
    held = 0;
    assert.equal(ledger.balanceMicro(), 0);
    assert.equal(ledger.checkInvariant().ok, true);
    // Positive adjustments are never limited by holds.
    assert.equal(ledger.adjust(50, 'credit'), 50);
    ledger.close();
  });
});
