import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dayStartOf, initialState, lowBalanceOf, reduce, type AppState } from '../../main/state.js';
import { gatewaySettings, key, line, NOW, runningState, wallet } from './fixtures.js';

const HOUR = 3_600_000;

test("a snapshot fills wallet, keys, lines, the pause state and the gateway's settings", () => {
  const s = reduce(initialState(NOW), {
    type: 'snapshot',
    snapshot: {
      wallet: wallet(7),
      keys: [key('a')],
      lines: [line('l')],
      paused: true,
      settings: gatewaySettings({ lowBalanceMicro: 3 }),
    },
  });
  assert.equal(lowBalanceOf(s), 3);
  assert.equal(
    lowBalanceOf(reduce(s, { type: 'settings', settings: gatewaySettings({ lowBalanceMicro: null }) })),
    null,
  );
  assert.equal(lowBalanceOf(initialState(NOW)), null, 'no threshold before the gateway has said');
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

test("today's spend is the gateway's sum for the day; a sum for a day already over is not taken", () => {
  const day = dayStartOf(NOW);
  let s: AppState = reduce(runningState(), { type: 'spend', spend: { spentTodayMicro: 100, dayStart: day } });
  assert.equal(s.spentTodayMicro, 100);
  s = reduce(s, { type: 'spend', spend: { spentTodayMicro: 150, dayStart: day } });
  assert.equal(s.spentTodayMicro, 150, 'a later answer replaces the figure, it does not add to it');
  const t = reduce(s, { type: 'clock', now: day + 25 * HOUR });
  assert.equal(t.spentTodayMicro, 0, 'the clock passing midnight resets the figure');
  assert.equal(t.dayStart, dayStartOf(day + 25 * HOUR));
  assert.equal(reduce(t, { type: 'clock', now: day + 26 * HOUR }), t, 'and later ticks of the same day change nothing');
  assert.equal(
    reduce(t, { type: 'spend', spend: { spentTodayMicro: 999, dayStart: day } }),
    t,
    "yesterday's sum, answered after midnight",
  );
  const next = reduce(t, { type: 'spend', spend: { spentTodayMicro: 7, dayStart: t.dayStart } });
  assert.equal(next.spentTodayMicro, 7);
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
