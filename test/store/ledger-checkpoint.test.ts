/**
 * The ledger's WAL checkpoints run after the commit that called for them, once its settlements
 * have been answered, and still keep the WAL near SQLite's default size.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type Database from 'better-sqlite3';
import { Ledger } from '../../gateway/store/ledger.js';
import { ledgerRow } from '../helpers/ledger-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A WAL frame: its 24-byte header and a page of SQLite's default 4,096 bytes. */
const FRAME = 24 + 4096;

test('a checkpoint runs after the settlements of the commit that called for it, and the WAL stays near 1,000 pages', async () => {
  const ledger = new Ledger(dir);
  ledger.topup(1_000_000_000);
  const db = (ledger as unknown as { db: Database.Database }).db;
  const committed = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM requests');
  let answered = 0;
  /** At each checkpoint: the settlements committed whose promise has not resolved yet. */
  const atCheckpoint: number[] = [];
  const pragma = db.pragma.bind(db);
  db.pragma = ((source: string, options?: Database.PragmaOptions) => {
    if (source.startsWith('wal_checkpoint')) atCheckpoint.push(committed.get()!.n - answered);
    return pragma(source, options);
  }) as Database.Database['pragma'];
  let largest = 0;
  // Each batch is one commit of 8 rows, on its own model, key and session (so each dirties pages of its own).
  for (let b = 0; b < 400; b++) {
    const rows = Array.from({ length: 8 }, (_, i) =>
      ledgerRow({ model: `m-${b}`, keyName: `k-${b % 50}`, session: `s-${b}-${i}`, line: `l-${b % 7}` }),
    );
    await Promise.all(rows.map((r) => ledger.settle(r).then(() => answered++)));
    largest = Math.max(largest, statSync(join(dir, 'ledger.sqlite-wal')).size);
  }
  await new Promise((r) => setImmediate(r));
  assert.ok(atCheckpoint.length >= 2, `checkpoints run by the ledger: ${atCheckpoint.length}`);
  assert.deepEqual(
    atCheckpoint.filter((n) => n > 0),
    [],
    'no checkpoint runs while a committed settlement is still unanswered',
  );
  // SQLite's own checkpoint bounds it at 4,000 pages; the ledger's keep it near 1,000.
  assert.ok(largest <= 1_300 * FRAME, `the WAL reached ${Math.round(largest / FRAME)} pages`);
  assert.equal(committed.get()!.n, 3200);
  assert.equal(ledger.checkInvariant().ok, true);
  ledger.close();
  const reopened = new Ledger(dir);
  assert.equal(reopened.checkInvariant().loggedCostMicro, 3200 * 7);
  reopened.close();
});
