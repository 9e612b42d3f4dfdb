import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notices } from '../../main/notices.js';
import { initialState } from '../../main/state.js';
import { key, line, NOW, runningState, settings, wallet } from './fixtures.js';

test('the balance falling below the threshold notifies once, on the crossing', () => {
  const s = settings({ lowBalanceMicro: 1_000_000 });
  const above = runningState({ wallet: wallet(1_000_000) });
  const below = runningState({ wallet: wallet(999_999) });
  assert.deepEqual(notices(above, below, s).map((n) => n.kind), ['lowBalance']);
  assert.match(notices(above, below, s)[0]!.body, /\$0\.999999/);
  assert.deepEqual(notices(below, runningState({ wallet: wallet(5) }), s), [], 'already below: no repeat');
  assert.deepEqual(notices(initialState(NOW), below, s), [], 'first learnt from a snapshot: no notice');
});

test('a key passing 90 % of its quota notifies; keys without quota never do', () => {
  const s = settings();
  const before = runningState({ keys: [key('a', { quotaMicro: 1_000_000, usedMicro: 899_999 }), key('b', { usedMicro: 1e9 })] });
  const after = runningState({ keys: [key('a', { quotaMicro: 1_000_000, usedMicro: 900_000 }), key('b', { usedMicro: 2e9 })] });
  const got = notices(before, after, s);
  assert.deepEqual(got.map((n) => n.title), ['Tollgate: key "a" nearly at its quota']);
  assert.deepEqual(notices(after, after, s), []);
});

test('a line whose circuit opens notifies', () => {
  const got = notices(runningState({ lines: [line('openai', 'closed')] }), runningState({ lines: [line('openai', 'open')] }), settings());
  assert.deepEqual(got.map((n) => n.kind), ['lineDown']);
  assert.match(got[0]!.body, /retried in 30 s/);
  assert.deepEqual(notices(runningState({ lines: [line('openai', 'open')] }), runningState({ lines: [line('openai', 'open')] }), settings()), []);
});

test('each kind can be turned off', () => {
  const off = settings({ notifications: { lowBalance: false, keyQuota: false, lineDown: false } });
  const before = runningState({ wallet: wallet(2_000_000), keys: [key('a', { quotaMicro: 10, usedMicro: 0 })], lines: [line('x')] });
  const after = runningState({ wallet: wallet(1), keys: [key('a', { quotaMicro: 10, usedMicro: 10 })], lines: [line('x', 'open')] });
  assert.equal(notices(before, after, settings()).length, 3);
  assert.deepEqual(notices(before, after, off), []);
});
