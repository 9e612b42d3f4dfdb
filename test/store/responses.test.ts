import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ResponseStore } from '../../gateway/store/responses.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function withDir(run: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'tollgate-responses-'));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'a stored response is found at once, before its batch is written, and by its key only',
  withDir(async (dir) => {
    const store = new ResponseStore(dir);
    store.put('resp_1', 'key-a', [{ role: 'user', content: 'hi' }]);
    assert.deepEqual(store.get('resp_1', 'key-a'), [{ role: 'user', content: 'hi' }]);
    assert.equal(store.get('resp_1', 'key-b'), undefined);
    await turn();
    assert.deepEqual(store.get('resp_1', 'key-a'), [{ role: 'user', content: 'hi' }]);
    assert.equal(store.get('resp_1', 'key-b'), undefined);
    store.close();
  }),
);

test(
  'the responses put in one turn are written together and survive a restart; close writes what is held',
  withDir(async (dir) => {
    const store = new ResponseStore(dir);
    for (let i = 0; i < 20; i++) store.put(`resp_${i}`, 'key-a', [{ n: i }]);
    await turn();
    store.put('resp_last', 'key-a', [{ n: 'last' }]);
    store.close();
    const again = new ResponseStore(dir);
    for (let i = 0; i < 20; i++) assert.deepEqual(again.get(`resp_${i}`, 'key-a'), [{ n: i }]);
    assert.deepEqual(again.get('resp_last', 'key-a'), [{ n: 'last' }]);
    again.close();
  }),
);

test(
  'the items are kept as they were when put, and a later put of the same id replaces them',
  withDir(async (dir) => {
    const store = new ResponseStore(dir);
    const items: unknown[] = [{ n: 1 }];
    store.put('resp_1', 'key-a', items);
    items.push({ n: 2 });
    assert.deepEqual(store.get('resp_1', 'key-a'), [{ n: 1 }]);
    store.put('resp_1', 'key-a', [{ n: 3 }]);
    await turn();
    assert.deepEqual(store.get('resp_1', 'key-a'), [{ n: 3 }]);
    store.close();
  }),
);

test(
  'clear forgets the stored responses, those not yet written too',
  withDir(async (dir) => {
    const store = new ResponseStore(dir);
    store.put('resp_old', 'key-a', [{ n: 1 }]);
    await turn();
    store.put('resp_new', 'key-a', [{ n: 2 }]);
    store.clear();
    await turn();
    assert.equal(store.get('resp_old', 'key-a'), undefined);
    assert.equal(store.get('resp_new', 'key-a'), undefined);
    store.close();
    const again = new ResponseStore(dir);
    assert.equal(again.get('resp_new', 'key-a'), undefined);
    again.close();
  }),
);

test(
  'a stored response is written within moments, and at once when many are held',
  withDir(async (dir) => {
    const store = new ResponseStore(dir);
    const reader = new ResponseStore(dir);
    store.put('resp_soon', 'key-a', [{ n: 1 }]);
    assert.equal(reader.get('resp_soon', 'key-a'), undefined);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(reader.get('resp_soon', 'key-a'), [{ n: 1 }]);
    for (let i = 0; i < 64; i++) store.put(`resp_many_${i}`, 'key-a', [{ n: i }]);
    await turn();
    assert.deepEqual(reader.get('resp_many_63', 'key-a'), [{ n: 63 }]);
    reader.close();
    store.close();
  }),
);

test(
  'the prune of expired responses finds them by their time, not by reading every stored conversation',
  withDir(async (dir) => {
    new ResponseStore(dir).close();
    const db = new Database(join(dir, 'responses.sqlite'), { readonly: true });
    try {
      const plan = db
        .prepare('EXPLAIN QUERY PLAN DELETE FROM responses WHERE created < ?')
        .all(0)
        .map((r) => (r as { detail: string }).detail)
        .join('; ');
      assert.match(plan, /USING (COVERING )?INDEX responses_created/, plan);
    } finally {
      db.close();
    }
  }),
);

test(
  'a new store keeps its rows on 8 KB pages; a store made on 4 KB pages opens and keeps working on them',
  withDir(async (dir) => {
    const store = new ResponseStore(dir);
    store.put('resp_1', 'key-a', [{ n: 1 }]);
    store.close();
    const file = join(dir, 'responses.sqlite');
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('page_size', { simple: true }), 8192);
    db.close();

    const older = mkdtempSync(join(os.tmpdir(), 'tollgate-responses-4k-'));
    try {
      const made = new Database(join(older, 'responses.sqlite'));
      made.pragma('page_size = 4096');
      made.pragma('journal_mode = WAL');
      made.exec(
        'CREATE TABLE responses (id TEXT PRIMARY KEY, key_id TEXT NOT NULL, created INTEGER NOT NULL, items TEXT NOT NULL)',
      );
      made.prepare('INSERT INTO responses VALUES (?, ?, ?, ?)').run('resp_0', 'key-a', Date.now(), '[{"n":0}]');
      made.close();
      const reopened = new ResponseStore(older);
      assert.deepEqual(reopened.get('resp_0', 'key-a'), [{ n: 0 }]);
      reopened.put('resp_1', 'key-a', [{ n: 1 }]);
      reopened.close();
      const check = new Database(join(older, 'responses.sqlite'), { readonly: true });
      assert.equal(check.pragma('page_size', { simple: true }), 4096);
      check.close();
      const again = new ResponseStore(older);
      assert.deepEqual(again.get('resp_1', 'key-a'), [{ n: 1 }]);
      again.close();
    } finally {
      rmSync(older, { recursive: true, force: true });
    }
  }),
);
