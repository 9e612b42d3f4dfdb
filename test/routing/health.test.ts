/** The circuit breaker and 429 holds of one line, with time passed explicitly. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FAILURES_TO_OPEN, LineHealth, MAX_COOLDOWN_MS, MAX_HOLD_MS } from '../../gateway/routing/health.js';

function openBreaker(h: LineHealth, id: string, now: number): void {
  for (let i = 0; i < FAILURES_TO_OPEN; i++) h.record(id, 'down', now);
}

test('a line is closed until it fails enough times in a row; a success in between starts the count again', () => {
  const h = new LineHealth(1_000);
  for (let i = 0; i < FAILURES_TO_OPEN - 1; i++) h.record('a', 'down', 0);
  h.record('a', 'up', 0);
  for (let i = 0; i < FAILURES_TO_OPEN - 1; i++) h.record('a', 'down', 0);
  assert.deepEqual(h.describe('a', 0), { state: 'closed', failures: FAILURES_TO_OPEN - 1, waitMs: 0, lastTest: null });
  assert.equal(h.tryUse('a', 0), 'normal');
  h.record('a', 'down', 0);
  assert.deepEqual(h.describe('a', 0), { state: 'open', failures: FAILURES_TO_OPEN, waitMs: 1_000, lastTest: null });
  assert.equal(h.tryUse('a', 999), false);
});

test('after the cool-down one probe goes through; a second waits for it', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  assert.equal(h.state('a', 1_000), 'half-open');
  assert.equal(h.tryUse('a', 1_000), 'probe');
  assert.equal(h.tryUse('a', 1_001), false);
  h.record('a', 'up', 1_001, 'probe');
  assert.deepEqual(h.describe('a', 1_002), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
  assert.equal(h.tryUse('a', 1_002), 'normal');
});

test('each failed probe doubles the cool-down, up to the maximum; a success resets it', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  let now = 0;
  const cooldowns: number[] = [];
  for (let i = 0; i < 12; i++) {
    now += h.waitMs('a', now);
    assert.equal(h.tryUse('a', now), 'probe');
    h.record('a', 'down', now, 'probe');
    cooldowns.push(h.waitMs('a', now));
  }
  assert.deepEqual(cooldowns.slice(0, 4), [2_000, 4_000, 8_000, 16_000]);
  assert.equal(Math.max(...cooldowns), MAX_COOLDOWN_MS);
  now += h.waitMs('a', now);
  h.record('a', 'up', now, h.tryUse('a', now) || 'normal');
  openBreaker(h, 'a', now);
  assert.equal(h.waitMs('a', now), 1_000);
});

test('an upstream 429 holds the line for its retry-after without counting as a failure, and never shortens a hold', () => {
  const h = new LineHealth();
  h.rateLimited('a', 0, 10);
  assert.deepEqual(h.describe('a', 0), { state: 'closed', failures: 0, waitMs: 10_000, lastTest: null });
  assert.equal(h.rateLimitWaitMs('a', 4_000), 6_000);
  assert.equal(h.tryUse('a', 4_000), false);
  h.rateLimited('a', 5_000, 1);
  assert.equal(h.rateLimitWaitMs('a', 5_000), 5_000);
  assert.equal(h.tryUse('a', 10_000), 'normal');
});

test('a hold is at most MAX_HOLD_MS, whatever the retry-after', () => {
  const h = new LineHealth();
  h.rateLimited('a', 0, 99_999_999);
  assert.equal(h.rateLimitWaitMs('a', 0), MAX_HOLD_MS);
  h.rateLimited('b', 0, Infinity);
  assert.equal(h.rateLimitWaitMs('b', 0), MAX_HOLD_MS);
});

describe('every probe ends the half-open state', () => {
  const probing = (): LineHealth => {
    const h = new LineHealth(1_000);
    openBreaker(h, 'a', 0);
    assert.equal(h.tryUse('a', 1_000), 'probe');
    return h;
  };

  test('an upstream that answered closes the breaker', () => {
    const h = probing();
    h.record('a', 'up', 1_000, 'probe');
    assert.deepEqual(h.describe('a', 1_000), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
  });

  test('an upstream failure opens it for twice as long', () => {
    const h = probing();
    h.record('a', 'down', 1_000, 'probe');
    assert.deepEqual(h.describe('a', 1_000), {
      state: 'open',
      failures: FAILURES_TO_OPEN + 1,
      waitMs: 2_000,
      lastTest: null,
    });
  });

  test('a probe that proved nothing opens it for the same cool-down', () => {
    const h = probing();
    h.record('a', 'unknown', 1_000, 'probe');
    assert.deepEqual(h.describe('a', 1_000), {
      state: 'open',
      failures: FAILURES_TO_OPEN,
      waitMs: 1_000,
      lastTest: null,
    });
    assert.equal(h.tryUse('a', 2_000), 'probe');
  });

  test('a probe given back unsent lets the next request probe', () => {
    const h = probing();
    h.release('a', 'probe');
    assert.equal(h.tryUse('a', 1_000), 'probe');
  });

  test("an older request's verdict does not end the probe", () => {
    const h = probing();
    h.record('a', 'unknown', 1_000);
    assert.equal(h.tryUse('a', 1_000), false, 'the probe still runs');
  });
});

test('lines are independent, and an unknown line is healthy', () => {
  const h = new LineHealth(1_000);
  openBreaker(h, 'a', 0);
  assert.deepEqual(h.describe('b', 0), { state: 'closed', failures: 0, waitMs: 0, lastTest: null });
  assert.equal(h.tryUse('b', 0), 'normal');
  h.record('unknown', 'up', 0);
  assert.equal(h.state('unknown', 0), 'closed');
});

test("a failed Test is the line's health until a test passes or the upstream answers a request; it never closes the line to routing", () => {
  const h = new LineHealth(1_000);
  const failed = { ok: false, status: 401, message: 'HTTP 401: bad key', at: 5 };
  h.tested('a', failed);
  assert.deepEqual(h.describe('a', 10), { state: 'closed', failures: 0, waitMs: 0, lastTest: failed });
  assert.equal(h.tryUse('a', 10), 'normal', 'a model list some servers lack is no reason to stop routing');
  h.forget('a');
  assert.deepEqual(h.describe('a', 10).lastTest, failed, 'turning the line off and on does not hide it');
  h.record('a', 'down', 11);
  assert.deepEqual(h.describe('a', 11).lastTest, failed);
  h.record('a', 'up', 12);
  assert.equal(h.describe('a', 12).lastTest, null, 'a request the upstream answered proves the line');
  h.tested('a', failed);
  const passed = { ok: true, status: 200, message: 'reachable; 2 models listed', at: 20 };
  h.tested('a', passed);
  assert.deepEqual(h.describe('a', 21).lastTest, passed);
  h.record('a', 'up', 22);
  assert.deepEqual(h.describe('a', 22).lastTest, passed, 'a passed test is kept');
});
