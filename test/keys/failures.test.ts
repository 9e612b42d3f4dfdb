import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthFailures } from '../../gateway/keys/failures.js';

test('failed authentication is answered at once at first, then later and later, up to a cap', () => {
  const f = new AuthFailures(3, 10_000, 100, 500);
  const t = 1_000_000;
  assert.deepEqual([f.fail(t), f.fail(t), f.fail(t)], [0, 0, 0]);
  assert.deepEqual([f.fail(t), f.fail(t), f.fail(t)], [100, 200, 300]);
  for (let i = 0; i < 50; i++) f.fail(t);
  assert.equal(f.fail(t), 500, 'capped');
  assert.equal(f.total, 57);
});

test('the window forgets old failures', () => {
  const f = new AuthFailures(2, 1_000, 100, 500);
  for (let i = 0; i < 5; i++) f.fail(0);
  assert.equal(f.fail(500), 400);
  assert.equal(f.fail(1_600), 0, 'only the failures of the last second count');
});
