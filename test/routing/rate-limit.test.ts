import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingWindow } from '../../gateway/routing/rate-limit.js';

test('admits rpm requests in a minute and reports the wait for the next', () => {
  const w = new SlidingWindow(3);
  assert.equal(w.waitMs(0), 0);
  assert.equal(w.tryTake(0), true);
  assert.equal(w.tryTake(1_000), true);
  assert.equal(w.tryTake(2_000), true);
  assert.equal(w.waitMs(3_000), 57_000);
  assert.equal(w.tryTake(3_000), false);
  assert.equal(w.waitMs(59_999), 1);
  assert.equal(w.tryTake(59_999), false);
});

test('the window slides: each admission frees its slot 60 s later', () => {
  const w = new SlidingWindow(3);
  for (const t of [0, 1_000, 2_000]) assert.equal(w.tryTake(t), true);
  assert.equal(w.tryTake(60_000), true);
  assert.equal(w.waitMs(60_000), 1_000);
  assert.equal(w.tryTake(60_500), false);
  assert.equal(w.tryTake(61_000), true);
  assert.equal(w.tryTake(62_000), true);
  assert.equal(w.waitMs(62_000), 58_000);
});

test('a refused request takes no slot', () => {
  const w = new SlidingWindow(1);
  assert.equal(w.tryTake(0), true);
  for (let t = 1_000; t < 60_000; t += 1_000) assert.equal(w.tryTake(t), false);
  assert.equal(w.tryTake(60_000), true);
  assert.equal(w.waitMs(60_000), 60_000);
});

test('a burst of rpm requests at one instant is admitted, the next is not', () => {
  const w = new SlidingWindow(60);
  for (let i = 0; i < 60; i++) assert.equal(w.tryTake(5_000), true, `request ${i + 1}`);
  assert.equal(w.tryTake(5_000), false);
  assert.equal(w.waitMs(5_000), 60_000);
});
