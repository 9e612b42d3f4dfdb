/** The circuit breaker and 429 holds of one line, with time passed explicitly. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAILURES_TO_OPEN, LineHealth, MAX_COOLDOWN_MS } from '../../gateway/routing/health.js';

function openBreaker(h: LineHealth, id: string, now: number): void {
  for (let i = 0; i < FAILURES_TO_OPEN; i++) h.failure(id, now);
}

test('a line is closed until it fails enough times in a row; a success in between starts the count again', () => {
  const h = new LineHealth(1_000);
  for (let i = 0; i < FAILURES_TO_OPEN - 1; i++) h.failure('a', 0);
  h.success('a');
  for (let i = 0; i < FAILURES_TO_OPEN - 1; i++) h.failure('a', 0);
  assert.deepEqual(h.describe('a', 0), { state: 'closed', failures: FAILURES_TO_OPEN - 1, waitMs: 0 });
  assert.equal(h.tryUse('a', 0), true);
  h.failure('a', 0);
  assert.deepEqual(h.describe('a', 0), { state: 'open', failures: FAILURES_TO_OPEN, waitMs: 1_000 });
  assert.equal(h.tryUse('a', 999), false);
});

test('after the cool-down one probe goes through; a second waits for it', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  assert.equal(h.state('a', 1_000), 'half-open');
  assert.equal(h.tryUse('a', 1_000), true);
  assert.equal(h.tryUse('a', 1_001), false);
  h.success('a');
  assert.deepEqual(h.describe('a', 1_002), { state: 'closed', failures: 0, waitMs: 0 });
  assert.equal(h.tryUse('a', 1_002), true);
});

test('each failed probe doubles the cool-down, up to the maximum; a success resets it', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  let now = 0;
  const cooldowns: number[] = [];
  for (let i = 0; i < 12; i++) {
    now += h.waitMs('a', now);
    assert.equal(h.tryUse('a', now), true);
    h.failure('a', now);
    cooldowns.push(h.waitMs('a', now));
  }
  assert.deepEqual(cooldowns.slice(0, 4), [2_000, 4_000, 8_000, 16_000]);
  assert.equal(Math.max(...cooldowns), MAX_COOLDOWN_MS);
  now += h.waitMs('a', now);
  h.tryUse('a', now);
  h.success('a');
  openBreaker(h, 'a', now);
  assert.equal(h.waitMs('a', now), 1_000);
});

test('an upstream 429 holds the line for its retry-after without counting as a failure, and never shortens a hold', () => {
  const h = new LineHealth();
  h.rateLimited('a', 0, 10);
  assert.deepEqual(h.describe('a', 0), { state: 'closed', failures: 0, waitMs: 10_000 });
  assert.equal(h.rateLimitWaitMs('a', 4_000), 6_000);
  assert.equal(h.tryUse('a', 4_000), false);
  h.rateLimited('a', 5_000, 1);
  assert.equal(h.rateLimitWaitMs('a', 5_000), 5_000);
  assert.equal(h.tryUse('a', 10_000), true);
});

test('a 429 on a probe ends the probe, so the next request after the hold may probe again', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  assert.equal(h.tryUse('a', 1_000), true);
  h.rateLimited('a', 1_000, 2);
  assert.equal(h.tryUse('a', 2_000), false);
  assert.equal(h.tryUse('a', 3_000), true);
});

test('lines are independent, and an unknown line is healthy', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  assert.deepEqual(h.describe('b', 0), { state: 'closed', failures: 0, waitMs: 0 });
  assert.equal(h.tryUse('b', 0), true);
  h.success('unknown');
  assert.equal(h.state('unknown', 0), 'closed');
});
