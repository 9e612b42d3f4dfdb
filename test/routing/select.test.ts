import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LineSelector } from '../../gateway/routing/select.js';
import type { LineRecord } from '../../gateway/store/types.js';
import { line } from '../helpers/relay-fakes.js';
import { mulberry32 } from '../helpers/seeded.js';

/** Evenly spaced values in [0, 1): over `n` picks each line gets exactly its share. */
function stratified(n: number): () => number {
  let i = 0;
  return () => ((i++ % n) + 0.5) / n;
}

/** How often each line comes first in the order forward() tries them. */
function tally(selector: LineSelector, lines: LineRecord[], picks: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < picks; i++) {
    const id = selector.order('gpt-4o', lines)[0]!.id;
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

describe('LineSelector', () => {
  test('prefers the highest priority', () => {
    const lines = [
      line('low', { priority: 1, weight: 100 }),
      line('high', { priority: 5 }),
      line('mid', { priority: 3, weight: 100 }),
    ];
    assert.deepEqual(tally(new LineSelector(stratified(100)), lines, 100), { high: 100 });
  });

  test('splits by weight among lines of equal priority', () => {
    const lines = [
      line('a', { weight: 2 }),
      line('b', { weight: 3 }),
      line('c', { weight: 5 }),
      line('backup', { priority: -1, weight: 100 }),
    ];
    assert.deepEqual(tally(new LineSelector(stratified(1_000)), lines, 1_000), { a: 200, b: 300, c: 500 });
    const counts = tally(new LineSelector(mulberry32(42)), lines, 20_000);
    assert.deepEqual(Object.keys(counts).sort(), ['a', 'b', 'c']);
    for (const [id, share] of [
      ['a', 0.2],
      ['b', 0.3],
      ['c', 0.5],
    ] as const) {
      assert.ok(Math.abs(counts[id]! / 20_000 - share) < 0.02, `${id}: ${counts[id]} of 20000`);
    }
  });

  test('never picks a zero-weight line while another line of its priority has weight', () => {
    const lines = [line('zero', { weight: 0 }), line('one', { weight: 1 })];
    assert.deepEqual(tally(new LineSelector(stratified(50)), lines, 50), { one: 50 });
  });

  test('skips disabled lines and lines that do not serve the model', () => {
    const lines = [
      line('off', { priority: 9, enabled: false }),
      line('other-model', { priority: 8, models: ['gpt-4o-mini'] }),
      line('on'),
    ];
    assert.deepEqual(tally(new LineSelector(() => 0), lines, 10), { on: 10 });
  });

  test('orders every serving line: by priority, then by a weighted draw within a priority', () => {
    const lines = [
      line('low', { priority: -1 }),
      line('a', { weight: 1 }),
      line('b', { weight: 3 }),
      line('top', { priority: 2 }),
    ];
    assert.deepEqual(
      new LineSelector(() => 0).order('gpt-4o', lines).map((l) => l.id),
      ['top', 'a', 'b', 'low'],
    );
    assert.deepEqual(
      new LineSelector(() => 0.99).order('gpt-4o', lines).map((l) => l.id),
      ['top', 'b', 'a', 'low'],
    );
  });

  test("takes a slot of a line's requests-per-minute window, or says how long until one frees", () => {
    const selector = new LineSelector();
    const limited = line('limited', { rpm: 2 });
    assert.deepEqual([selector.take(limited, 0), selector.take(limited, 1)], [0, 0]);
    assert.equal(selector.take(limited, 20_000), 40_000);
    assert.equal(selector.take(limited, 60_000), 0);
    assert.equal(selector.take(line('free'), 0), 0);
  });

  test('503 when no line serves the model', () => {
    const selector = new LineSelector();
    for (const lines of [[], [line('x', { models: ['gpt-4o-mini'] })], [line('off', { enabled: false })]]) {
      assert.throws(() => selector.order('gpt-4o', lines), {
        status: 503,
        code: 'no_line_for_model',
        message: /No line serves the model "gpt-4o".*--models gpt-4o/,
      });
    }
  });
});
