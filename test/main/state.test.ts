import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dayStartOf, initialState, reduce, type AppState } from '../../main/state.js';
import { key, line, logEntry, NOW, runningState, wallet } from './fixtures.js';

const HOUR = 3_600_000;

test('a snapshot fills wallet, keys, lines and the pause state', () => {
  const s = reduce(initialState(NOW), {
    type: 'snapshot',
    snapshot: { wallet: wallet(7), keys: [key('a')], lines: [line('l')], paused: true },
  });
  assert.equal(s.wallet?.balanceMicro, 7);
  assert.deepEqual(
    s.keys.map((k) => k.name),
    ['a'],
  );
  assert.equal(s.paused, true);
});

test('key events replace the key by id, add new ones and drop deleted ones', () => {
  let s = runningState();
  s = reduce(s, { type: 'key', key: key('laptop', { state: 'disabled' }) });
  assert.deepEqual(
    s.keys.map((k) => [k.name, k.state]),
    [
      ['laptop', 'disabled'],
      ['ci', 'disabled'],
    ],
  );
  s = reduce(s, { type: 'key', key: key('new') });
  assert.deepEqual(
    s.keys.map((k) => k.name),
    ['laptop', 'ci', 'new'],
  );
  s = reduce(s, { type: 'key', key: key('ci', { state: 'deleted' }) });
  assert.deepEqual(
    s.keys.map((k) => k.name),
    ['laptop', 'new'],
  );
});

test("today's spend counts each log row once and starts over at local midnight", () => {
  const day = dayStartOf(NOW);
  let s: AppState = reduce(runningState(), {
    type: 'spend',
    spend: { spentTodayMicro: 100, dayStart: day, lastLogId: 10 },
  });
  s = reduce(s, { type: 'log', entry: logEntry(10, NOW, 999) });
  assert.equal(s.spentTodayMicro, 100, 'row 10 was already in the sum');
  s = reduce(s, { type: 'log', entry: logEntry(11, NOW, 50) });
  s = reduce(s, { type: 'log', entry: logEntry(11, NOW, 50) });
  assert.equal(s.spentTodayMicro, 150);
  s = reduce(s, { type: 'log', entry: logEntry(12, day + 25 * HOUR, 7) });
  assert.equal(s.spentTodayMicro, 7, 'a row of the next day starts a new day');
  assert.equal(s.dayStart, dayStartOf(day + 25 * HOUR));
  const t = reduce(
    reduce(runningState(), { type: 'spend', spend: { spentTodayMicro: 100, dayStart: day, lastLogId: 1 } }),
    { type: 'clock', now: day + 25 * HOUR },
  );
  assert.equal(t.spentTodayMicro, 0, 'the clock passing midnight resets the figure');
  assert.equal(reduce(t, { type: 'clock', now: day + 26 * HOUR }), t, 'and later ticks of the same day change nothing');
});

test('a gateway that stops takes the feed offline; a restart keeps the last known figures', () => {
  const s = reduce(runningState(), {
    type: 'phase',
    phase: { kind: 'restarting', attempt: 1, inMs: 1000, reason: 'crash' },
  });
  assert.equal(s.feed, 'offline');
  assert.equal(s.phase.kind, 'restarting');
  assert.equal(s.wallet?.balanceMicro, 5_000_000);
});

test('line and wallet events replace what they name', () => {
  let s = reduce(runningState(), { type: 'line', line: line('openai', 'open') });
  assert.equal(s.lines[0]!.health.state, 'open');
  s = reduce(s, { type: 'wallet', wallet: wallet(1) });
  assert.equal(s.wallet?.balanceMicro, 1);
});
