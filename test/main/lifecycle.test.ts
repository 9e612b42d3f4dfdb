import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimSingleInstance, closeToTray } from '../../main/lifecycle.js';

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
