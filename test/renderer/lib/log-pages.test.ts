/**
 * The usage log's cache rule (renderer/lib/log-cache.ts) on plain data: live rows go into the
 * first page once, newest first, and a filter never holds more than MAX_CACHED_ROWS rows however
 * long the log stays open, with the rows cut off still reachable by paging.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LogEntry } from '../../../gateway/contract/admin/index.js';
import { MAX_CACHED_ROWS, withRows, withRowsAtEnd, type LogPages } from '../../../renderer/lib/log-pages.js';

const row = (id: number): LogEntry => ({ id }) as LogEntry;
const ids = (d: LogPages): number[] => d.pages.flatMap((p) => p.rows.map((r) => r.id));

describe('the log cache', () => {
  test('a live row goes to the top once; a row already held or older than the first page is left alone', () => {
    const data: LogPages = {
      pages: [
        { rows: [row(10), row(9)], more: true },
        { rows: [row(8)], more: false },
      ],
      pageParams: [undefined, 9],
    };
    assert.deepEqual(ids(withRows(data, [row(12), row(11)])), [12, 11, 10, 9, 8]);
    assert.equal(withRows(data, [row(10)]), data);
    assert.equal(withRows(data, [row(5)]), data, 'older than the first page: paging brings it');
  });

  test('an empty log takes every live row', () => {
    const empty: LogPages = { pages: [{ rows: [], more: false }], pageParams: [undefined] };
    assert.deepEqual(ids(withRows(empty, [row(1), row(3), row(2)])), [3, 2, 1]);
  });

  test('rows past the cap are cut from the oldest end, and paging resumes from the last row kept', () => {
    let data: LogPages = { pages: [{ rows: [], more: false }], pageParams: [undefined] };
    for (let id = 1; id <= MAX_CACHED_ROWS + 50; id++) data = withRows(data, [row(id)]);
    assert.equal(ids(data).length, MAX_CACHED_ROWS);
    assert.equal(ids(data)[0], MAX_CACHED_ROWS + 50);
    const last = data.pages[data.pages.length - 1]!;
    assert.equal(last.more, true, 'the rows cut off are still there to page to');

    const paged: LogPages = {
      pages: [
        { rows: Array.from({ length: MAX_CACHED_ROWS - 10 }, (_, i) => row(100_000 - i)), more: true },
        { rows: Array.from({ length: 200 }, (_, i) => row(90_000 - i)), more: true },
      ],
      pageParams: [undefined, 90_001],
    };
    const grown = withRows(paged, [row(100_001)]);
    assert.equal(ids(grown).length, MAX_CACHED_ROWS);
    assert.equal(grown.pages.length, 2);
    assert.equal(grown.pages[1]!.rows.length, 9);
    assert.deepEqual(grown.pageParams, [undefined, 90_001]);
  });

  test('oldest first, a live row goes at the end only once the end is held, once, in order', () => {
    const atEnd: LogPages = {
      pages: [
        { rows: [row(1), row(2)], more: true },
        { rows: [row(3)], more: false },
      ],
      pageParams: [undefined, 2],
    };
    assert.deepEqual(ids(withRowsAtEnd(atEnd, [row(5), row(4)])), [1, 2, 3, 4, 5]);
    assert.equal(withRowsAtEnd(atEnd, [row(3)]), atEnd, 'a row already held is not added again');
    const midway: LogPages = { pages: [{ rows: [row(1), row(2)], more: true }], pageParams: [undefined] };
    assert.equal(withRowsAtEnd(midway, [row(9)]), midway, 'not at the end yet: paging brings it in order');
    const emptyEnd: LogPages = {
      pages: [
        { rows: [row(1), row(2)], more: true },
        { rows: [], more: false },
      ],
      pageParams: [undefined, 2],
    };
    assert.deepEqual(ids(withRowsAtEnd(emptyEnd, [row(3)])), [1, 2, 3]);
  });

  test('oldest first, a live row past the cap is left to paging: the end is marked as having more', () => {
    const full: LogPages = {
      pages: [{ rows: Array.from({ length: MAX_CACHED_ROWS }, (_, i) => row(i + 1)), more: false }],
      pageParams: [undefined],
    };
    const next = withRowsAtEnd(full, [row(MAX_CACHED_ROWS + 1)]);
    assert.equal(ids(next).length, MAX_CACHED_ROWS);
    assert.equal(next.pages[0]!.more, true);
  });
});
