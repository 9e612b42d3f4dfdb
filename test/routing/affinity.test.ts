import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineAffinity } from '../../gateway/routing/affinity.js';
import type { LineRecord } from '../../gateway/store/types.js';

const line = (id: string, priority = 0) => ({ id, priority }) as LineRecord;
const a = line('a');
const b = line('b');
const c = line('c');

test('the line a scope last used goes first among the first priority; others keep their order', () => {
  const aff = new LineAffinity();
  const scope = LineAffinity.scope('key_1', 'gpt-5.4');
  assert.deepEqual(aff.prefer(scope, [a, b, c], 0), [a, b, c], 'nothing remembered');
  aff.record(scope, 'c', 0);
  assert.deepEqual(
    aff.prefer(scope, [a, b, c], 1).map((l) => l.id),
    ['c', 'a', 'b'],
  );
  assert.deepEqual(aff.prefer(LineAffinity.scope('key_2', 'gpt-5.4'), [a, b, c], 1), [a, b, c], 'another key');
  assert.deepEqual(aff.prefer(LineAffinity.scope('key_1', 'gpt-5.5'), [a, b, c], 1), [a, b, c], 'another model');
});

test('a session scope is the session, whatever the key', () => {
  const aff = new LineAffinity();
  aff.record(LineAffinity.scope('key_1', 'm', 'sess-1'), 'b', 0);
  assert.deepEqual(
    aff.prefer(LineAffinity.scope('key_2', 'm', 'sess-1'), [a, b], 1).map((l) => l.id),
    ['b', 'a'],
  );
});

test('a remembered line of lower priority does not jump ahead; one no longer serving is ignored', () => {
  const aff = new LineAffinity();
  const scope = LineAffinity.scope('k', 'm');
  aff.record(scope, 'low', 0);
  const high = line('high', 5);
  const low = line('low', 0);
  assert.deepEqual(aff.prefer(scope, [high, low], 1), [high, low]);
  assert.deepEqual(aff.prefer(scope, [a, b], 1), [a, b]);
});

test('forgotten after an hour without use, and bounded', () => {
  const aff = new LineAffinity(2, 1000);
  aff.record('s1', 'b', 0);
  assert.deepEqual(
    aff.prefer('s1', [a, b], 1001).map((l) => l.id),
    ['a', 'b'],
  );
  aff.record('s1', 'b', 0);
  aff.record('s2', 'b', 0);
  aff.record('s3', 'b', 0);
  assert.deepEqual(
    aff.prefer('s1', [a, b], 1).map((l) => l.id),
    ['a', 'b'],
    'the oldest went first',
  );
  assert.deepEqual(
    aff.prefer('s3', [a, b], 1).map((l) => l.id),
    ['b', 'a'],
  );
});
