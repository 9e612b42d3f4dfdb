import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LineSelector } from '../../gateway/routing/select.js';
import type { LineRecord } from '../../gateway/store/types.js';
import { mulberry32 } from '../helpers/seeded.js';

const line = (id: string, over: Partial<LineRecord> = {}): LineRecord => ({
  id,
  name: id,
  protocol: 'openai-chat',
  baseUrl: `https://${id}.example/v1`,
  models: ['gpt-4o'],
  modelMap: {},
  apiKeyEnv: null,
  rpm: null,
  priority: 0,
  weight: 1,
  enabled: true,
  timeouts: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

/** Evenly spaced values in [0, 1): over `n` picks each line gets exactly its share. */
function stratified(n: number): () => number {
  let i = 0;
  return () => ((i++ % n) + 0.5) / n;
}

function tally(selector: LineSelector, lines: LineRecord[], picks: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < picks; i++) {
    const id = selector.pick('gpt-4o', lines, 0).id;
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

describe('LineSelector', () => {
  test('prefers the highest priority', () => {
    const lines = [line('low', { priority: 1, weight: 100 }), line('high', { priority: 5 }), line('mid', { priority: 3, weight: 100 })];
    assert.deepEqual(tally(new LineSelector(stratified(100)), lines, 100), { high: 100 });
  });

  test('splits by weight among lines of equal priority', () => {
    const lines = [line('a', { weight: 2 }), line('b', { weight: 3 }), line('c', { weight: 5 }), line('backup', { priority: -1, weight: 100 })];
    assert.deepEqual(tally(new LineSelector(stratified(1_000)), lines, 1_000), { a: 200, b: 300, c: 500 });
    const counts = tally(new LineSelector(mulberry32(42)), lines, 20_000);
    assert.deepEqual(Object.keys(counts).sort(), ['a', 'b', 'c']);
    for (const [id, share] of [['a', 0.2], ['b', 0.3], ['c', 0.5]] as const) {
      assert.ok(Math.abs(counts[id]! / 20_000 - share) < 0.02, `${id}: ${counts[id]} of 20000`);
    }
  });

  test('never picks a zero-weight line while another line of its priority has weight', () => {
    const lines = [line('zero', { weight: 0 }), line('one', { weight: 1 })];
    assert.deepEqual(tally(new LineSelector(stratified(50)), lines, 50), { one: 50 });
  });

  test('skips disabled lines and lines that do not serve the model', () => {
    const lines = [line('off', { priority: 9, enabled: false }), line('other-model', { priority: 8, models: ['gpt-4o-mini'] }), line('on')];
    assert.deepEqual(tally(new LineSelector(() => 0), lines, 10), { on: 10 });
  });

  test('skips a line at its rate limit in favour of the next priority', () => {
    const selector = new LineSelector(() => 0);
    const lines = [line('primary', { priority: 2, rpm: 2 }), line('fallback', { priority: 1 })];
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => selector.pick('gpt-4o', lines, t).id),
      ['primary', 'primary', 'fallback', 'fallback'],
    );
    assert.equal(selector.pick('gpt-4o', lines, 60_000).id, 'primary');
  });

  test('skips a line at its rate limit in favour of another of equal priority', () => {
    const selector = new LineSelector(() => 0); // always draws the first line by weight
    const lines = [line('heavy', { weight: 100, rpm: 1 }), line('light', { weight: 1 })];
    assert.equal(selector.pick('gpt-4o', lines, 0).id, 'heavy');
    assert.equal(selector.pick('gpt-4o', lines, 1).id, 'light');
  });

  test('429 with the shortest wait when every line is at its limit', () => {
    const selector = new LineSelector(() => 0);
    const lines = [line('a', { rpm: 1 }), line('b', { rpm: 1, priority: 1 })];
    assert.equal(selector.pick('gpt-4o', lines, 0).id, 'b');
    assert.equal(selector.pick('gpt-4o', lines, 20_000).id, 'a');
    assert.throws(() => selector.pick('gpt-4o', lines, 30_000), {
      status: 429,
      code: 'line_rate_limited',
      retryAfter: 30, // b frees at 60 s, a at 80 s
      message: /every line serving "gpt-4o" is at its requests-per-minute limit or on hold after an upstream 429. Retry in 30 s/,
    });
    assert.throws(() => selector.pick('gpt-4o', lines, 59_999), { status: 429, retryAfter: 1 }); // 1 ms rounds up to 1 s
  });

  test('503 when no line serves the model', () => {
    const selector = new LineSelector();
    for (const lines of [[], [line('x', { models: ['gpt-4o-mini'] })], [line('off', { enabled: false })]]) {
      assert.throws(() => selector.pick('gpt-4o', lines, 0), {
        status: 503,
        code: 'no_line_for_model',
        message: /No line serves the model "gpt-4o".*--models gpt-4o/,
      });
    }
  });
});
