/** Which sessions the tray keeps, and how the list asked for on connect joins what events reported. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinSessions, keptSessions, MAX_SESSIONS } from '../../main/session-list.js';
import { initialState, reduce } from '../../main/state.js';
import { NOW, session } from './fixtures.js';

const ids = (list: { id: string }[]) => list.map((s) => s.id);

test('kept: paused first, then the latest activity; idle ones left out; at most MAX_SESSIONS', () => {
  const list = [
    session('old', { lastTs: NOW - 60_000 }),
    session('idle', { state: 'idle', lastTs: NOW }),
    session('new', { lastTs: NOW - 1_000 }),
    session('held', { state: 'paused', lastTs: NOW - 3_600_000 }),
  ];
  assert.deepEqual(ids(keptSessions(list)), ['held', 'new', 'old']);
  const many = Array.from({ length: MAX_SESSIONS + 3 }, (_, i) => session(`s${i}`, { lastTs: NOW - i }));
  assert.deepEqual(ids(keptSessions(many)), ids(many.slice(0, MAX_SESSIONS)));
});

test('joined: the list fills in sessions no event told of; of two versions, the later request wins, the event at a tie', () => {
  const known = [
    session('seen-later', { lastTs: NOW, costMicro: 9 }),
    session('tie', { lastTs: NOW - 5_000, state: 'active', pause: null }),
  ];
  const listed = [
    session('seen-later', { lastTs: NOW - 1_000, costMicro: 5 }),
    session('tie', { lastTs: NOW - 5_000, state: 'paused' }),
    session('running-before-the-tray', { lastTs: NOW - 2_000 }),
    session('long-idle', { state: 'idle', lastTs: NOW - 86_400_000 }),
    session('listed-newer', { lastTs: NOW - 500, costMicro: 3 }),
  ];
  const joined = joinSessions([...known, session('listed-newer', { lastTs: NOW - 9_000, costMicro: 1 })], listed);
  assert.deepEqual(ids(joined), ['seen-later', 'listed-newer', 'running-before-the-tray', 'tie']);
  assert.equal(joined.find((s) => s.id === 'seen-later')!.costMicro, 9);
  assert.equal(joined.find((s) => s.id === 'listed-newer')!.costMicro, 3);
  assert.equal(joined.find((s) => s.id === 'tie')!.state, 'active');
});

test("the state's sessions action joins the list into what the events reported", () => {
  let state = initialState(NOW);
  state = reduce(state, { type: 'session', session: session('from-event'), notice: null });
  state = reduce(state, {
    type: 'sessions',
    sessions: [session('from-list', { state: 'paused', lastTs: NOW - 3_600_000 })],
  });
  assert.deepEqual(ids(state.sessions), ['from-list', 'from-event']);
});
