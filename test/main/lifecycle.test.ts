import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimSingleInstance, closeToTray, createQuitHandler } from '../../main/lifecycle.js';

function fakeApp(lock: boolean) {
  const listeners: Record<string, (() => void)[]> = {};
  return {
    listeners,
    requestSingleInstanceLock: () => lock,
    on(event: 'second-instance', fn: () => void) {
      (listeners[event] ??= []).push(fn);
    },
  };
}

test('the first instance takes the lock and shows its window when a second one starts', () => {
  const app = fakeApp(true);
  let shown = 0;
  assert.equal(
    claimSingleInstance(app, () => shown++),
    true,
  );
  app.listeners['second-instance']![0]!();
  assert.equal(shown, 1);
});

test('a second instance does not get the lock and listens to nothing', () => {
  const app = fakeApp(false);
  assert.equal(
    claimSingleInstance(app, () => assert.fail('must not be called')),
    false,
  );
  assert.equal(app.listeners['second-instance'], undefined);
});

function event() {
  return {
    prevented: 0,
    preventDefault() {
      this.prevented++;
    },
  };
}

test('closing the window hides it to the tray unless the app is quitting', () => {
  let hidden = 0;
  const e = event();
  closeToTray(e, false, () => hidden++);
  assert.deepEqual([e.prevented, hidden], [1, 1]);
  const q = event();
  closeToTray(q, true, () => hidden++);
  assert.deepEqual([q.prevented, hidden], [0, 1]);
});

test('quit waits for the gateway to stop, absorbs repeated quits, then lets the quit through', async () => {
  let finish!: () => void;
  let quits = 0;
  let stops = 0;
  const h = createQuitHandler({
    stopGateway: () => {
      stops++;
      return new Promise<void>((r) => (finish = r));
    },
    quit: () => quits++,
    log: () => undefined,
  });
  const first = event();
  h.onBeforeQuit(first);
  assert.equal(first.prevented, 1, 'held back while the gateway stops');
  assert.equal(h.quitting(), true);
  const second = event();
  h.onBeforeQuit(second);
  assert.equal(second.prevented, 1);
  assert.equal(stops, 1, 'one stop only');
  assert.equal(quits, 0);
  finish();
  await new Promise((r) => setImmediate(r));
  assert.equal(quits, 1, 'quits again once stopped');
  const last = event();
  h.onBeforeQuit(last);
  assert.equal(last.prevented, 0, 'and that quit goes through');
});

test('a failing stop still quits, and says why', async () => {
  const logs: string[] = [];
  let quits = 0;
  const h = createQuitHandler({
    stopGateway: () => Promise.reject(new Error('boom')),
    quit: () => quits++,
    log: (m) => logs.push(m),
  });
  h.onBeforeQuit(event());
  await new Promise((r) => setImmediate(r));
  assert.equal(quits, 1);
  assert.match(logs[0]!, /boom/);
});
