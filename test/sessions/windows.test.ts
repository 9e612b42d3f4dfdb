/** A key's spend over rolling windows: sums, minutes leaving the window, and when room frees. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MINUTE_MS, RollingSpend } from '../../gateway/sessions/windows.js';

const H = 3_600_000;

test('each window sums what was charged within it, and minutes leave it as time passes', () => {
  const t0 = 1_000 * H;
  const r = new RollingSpend([{ at: t0, micro: 100 }]);
  r.add(t0 + 4 * H, 50);
  assert.equal(r.spent('5h', t0 + 4 * H), 150);
  assert.equal(r.spent('5h', t0 + 5 * H + MINUTE_MS), 50);
  assert.equal(r.spent('1d', t0 + 5 * H + MINUTE_MS), 150);
  assert.equal(r.spent('30d', t0 + 31 * 24 * H), 0);
});

test('freesAt: when the oldest charges have left enough room', () => {
  const t0 = 2_000 * H;
  const r = new RollingSpend();
  r.add(t0, 100);
  r.add(t0 + H, 100);
  const now = t0 + 2 * H;
  assert.equal(r.freesAt('5h', 150, 0, now), t0 + MINUTE_MS + 5 * H, 'once the first 100 leaves');
  assert.equal(r.freesAt('5h', 250, 0, now), now, 'room already');
});
