/**
 * When the ledger commits: a settlement in its own turn's check phase, and an admitted request's
 * pending row (its crash record) only once the request has been open for PENDING_AFTER_MS, so that
 * the requests that settle sooner write neither the row nor its delete. Time is the test's own
 * (mocked timers and clock), never waited for.
 */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { tempDirs } from '../helpers/temp-dirs.js';
import Database from 'better-sqlite3';
import { ledgerRow, pendingRow } from '../helpers/ledger-rows.js';
import { Ledger } from '../../gateway/store/ledger.js';
import { PENDING_AFTER_MS } from '../../gateway/store/ledger-pending.js';

const tempDir = tempDirs('ledger-pending');

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The pending rows on disk, read by a connection of its own. */
function pendingIds(dir: string): string[] {
  const db = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
  try {
    return db
      .prepare<[], { request_id: string }>('SELECT request_id FROM pending ORDER BY request_id')
      .all()
      .map((r) => r.request_id);
  } finally {
    db.close();
  }
}

/** The ledger's clock and timers are the test's: time passes only by `t.mock.timers.tick`. */
function mockTime(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
}

test('a request settled within PENDING_AFTER_MS of its admission never writes a pending row', async (t) => {
  mockTime(t);
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(1_000);
  ledger.open(pendingRow('req_quick'));
  // Turns pass (other requests' commits among them) and nearly all of the window.
  for (let i = 0; i < 3; i++) await turn();
  await ledger.settle(ledgerRow({ requestId: 'req_other', costMicro: 5 }));
  t.mock.timers.tick(PENDING_AFTER_MS - 1);
  assert.deepEqual(pendingIds(dir), []);
  assert.equal(ledger.problems(new Map()).unsettled.count, 0);
  await ledger.settle(ledgerRow({ requestId: 'req_quick', costMicro: 7 }));
  t.mock.timers.tick(PENDING_AFTER_MS);
  assert.deepEqual(pendingIds(dir), []);
  assert.deepEqual(
    ledger.logs({ limit: 10 }).map((e) => e.requestId),
    ['req_quick', 'req_other'],
  );
  assert.equal(ledger.checkInvariant().ok, true);
  ledger.close();
  assert.deepEqual(pendingIds(dir), [], 'nothing left to write at close');
});

test('a request still open PENDING_AFTER_MS after its admission has its pending row written, and its settlement deletes it', async (t) => {
  mockTime(t);
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(1_000);
  ledger.open(pendingRow('req_long'));
  t.mock.timers.tick(PENDING_AFTER_MS / 2);
  ledger.open(pendingRow('req_later'));
  t.mock.timers.tick(PENDING_AFTER_MS / 2);
  // Written by the timer, no settlement having committed: only the one whose window has passed.
  assert.deepEqual(pendingIds(dir), ['req_long']);
  assert.equal(ledger.problems(new Map()).unsettled.count, 0, 'in flight in this process');
  t.mock.timers.tick(PENDING_AFTER_MS / 2);
  assert.deepEqual(pendingIds(dir), ['req_later', 'req_long']);
  await ledger.settle(ledgerRow({ requestId: 'req_long', costMicro: 9 }));
  assert.deepEqual(pendingIds(dir), ['req_later']);
  await ledger.settle(ledgerRow({ requestId: 'req_later', costMicro: 9 }));
  assert.deepEqual(pendingIds(dir), []);
  assert.equal(ledger.checkInvariant().ok, true);
  ledger.close();
});

test("a settlement is committed in its own turn's check phase, whatever is still open", async () => {
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.topup(1_000);
  ledger.open(pendingRow('req_waiting'));
  let settled = false;
  void ledger.settle(ledgerRow({ requestId: 'req_other', costMicro: 5 })).then(() => (settled = true));
  await turn();
  assert.equal(settled, true);
  assert.equal(ledger.logs({ limit: 10 }).length, 1);
  ledger.close();
});

test('after a crash, a request open past the window is closed as interrupted; one admitted within it left no row', async (t) => {
  mockTime(t);
  const dir = tempDir();
  const crashed = new Ledger(dir);
  crashed.topup(1_000);
  crashed.open(pendingRow('req_old'));
  t.mock.timers.tick(PENDING_AFTER_MS);
  crashed.open(pendingRow('req_new'));
  // The process dies here: nothing more of it runs (no close). A second ledger reads what is on disk.
  const next = new Ledger(dir);
  assert.deepEqual(next.problems(new Map()).unsettled, { count: 1, requestIds: ['req_old'] });
  assert.equal(next.closeInterrupted(), 1);
  assert.equal(next.logs({})[0]?.errorCode, 'gateway_interrupted');
  assert.equal(next.checkInvariant().ok, true);
  next.close();
});

test('a graceful close writes the pending rows of the requests still open, however young', async (t) => {
  mockTime(t);
  const dir = tempDir();
  const ledger = new Ledger(dir);
  ledger.open(pendingRow('req_young'));
  ledger.close();
  assert.deepEqual(pendingIds(dir), ['req_young']);
});
