import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeToTray } from '../../main/lifecycle.js';
import { createQuitStages, INSTALL_TIMEOUT_MS } from '../../main/quit-stages.js';

function event() {
  return {
    prevented: 0,
    preventDefault() {
      this.prevented++;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

/**
 * The app around the quit stages: a gateway that stops and resumes on request, a hidden console
 * window with the close-to-tray rule, and `app.quit()` as Electron does it (`before-quit`, then
 * the windows close, unless the quit was prevented).
 */
function setup(opts: { stopFails?: boolean } = {}) {
  const order: string[] = [];
  const notes: string[] = [];
  const timers: { ms: number; fn: () => void; cancelled: boolean }[] = [];
  let finishStop: () => void = () => undefined;
  let holdStop = false;
  const window = { open: true, visible: false };
  let quitted = false;
  const stages = createQuitStages({
    stopGateway: () => {
      order.push('stop gateway');
      if (opts.stopFails) return Promise.reject(new Error('boom'));
      return holdStop ? new Promise<void>((r) => (finishStop = r)) : Promise.resolve();
    },
    stopGatewayNow: async () => void order.push('stop gateway now'),
    resumeGateway: async () => void order.push('resume gateway'),
    quit: () => {
      order.push('quit');
      app.quit();
    },
    setTimer: (fn, ms) => {
      const t = { ms, fn, cancelled: false };
      timers.push(t);
      return () => (t.cancelled = true);
    },
    notify: (t, b) => void notes.push(`${t}: ${b}`),
    log: (m) => void order.push(`log ${m}`),
  });
  /** The console window's close, as window.ts wires it. */
  const closeWindow = (): boolean => {
    const e = event();
    closeToTray(e, stages.quitting(), () => (window.visible = false));
    if (e.prevented === 0) window.open = false;
    return e.prevented === 0;
  };
  const app = {
    quit(): void {
      const e = event();
      stages.onBeforeQuit(e);
      if (e.prevented) return;
      closeWindow();
      quitted = true;
    },
  };
  /** Squirrel.Mac's quitAndInstall: every window is closed first, then app.quit(); a vetoed close cancels it. */
  const nativeMacInstall = (): void => {
    order.push('native install');
    if (!closeWindow()) return;
    app.quit();
  };
  const fire = (ms: number) => {
    for (const t of timers.filter((x) => x.ms === ms && !x.cancelled)) {
      t.cancelled = true;
      t.fn();
    }
  };
  return {
    stages,
    app,
    order,
    notes,
    timers,
    window,
    closeWindow,
    nativeMacInstall,
    fire,
    hold: () => (holdStop = true),
    release: () => finishStop(),
    quitted: () => quitted,
  };
}

test('an ordinary quit waits for the gateway to stop, absorbs repeated quits, then goes through', async () => {
  const h = setup();
  h.hold();
  h.app.quit();
  assert.equal(h.quitted(), false, 'held back while the gateway stops');
  assert.equal(h.stages.quitting(), true);
  h.app.quit();
  assert.deepEqual(h.order, ['stop gateway'], 'one stop only');
  h.release();
  await tick();
  assert.equal(h.quitted(), true);
  assert.deepEqual(h.order, ['stop gateway', 'quit']);
  assert.equal(h.stages.stage(), 'done');
});

test('a failing stop still quits, and says why', async () => {
  const h = setup({ stopFails: true });
  h.app.quit();
  await tick();
  assert.equal(h.quitted(), true);
  assert.ok(h.order.some((l) => /stopping the gateway failed: boom/.test(l)));
});

test('closing the window hides it to the tray while nothing is quitting', () => {
  const h = setup();
  assert.equal(h.closeWindow(), false);
  assert.equal(h.window.open, true);
});

test('Restart to install on macOS: the gateway stops first, the native updater may close the windows, and its quit goes through', async () => {
  const h = setup();
  await h.stages.installUpdate(h.nativeMacInstall);
  assert.equal(h.window.open, false, 'the close-to-tray rule did not veto the updater closing the window');
  assert.equal(h.quitted(), true, "the updater's quit was not held back");
  assert.deepEqual(
    h.order,
    ['stop gateway', 'native install'],
    'stopped before the updater ran, and not stopped again',
  );
  assert.equal(h.stages.stage(), 'done');
  assert.ok(
    h.timers.every((t) => t.cancelled),
    'the install timeout is cleared',
  );
});

test('Restart to install on Windows and Linux: the updater only calls app.quit()', async () => {
  const h = setup();
  await h.stages.installUpdate(() => {
    h.order.push('installer started');
    h.app.quit();
  });
  assert.equal(h.quitted(), true);
  assert.deepEqual(h.order, ['stop gateway', 'installer started']);
});

test('an update that fails to install leaves the gateway running again, not stopped for good', async () => {
  const h = setup();
  await h.stages.installUpdate(() => h.order.push('native install'));
  assert.equal(h.stages.stage(), 'installing');
  h.stages.updateFailed('Code signature did not pass validation');
  await tick();
  assert.deepEqual(
    h.order.filter((l) => !l.startsWith('log')),
    ['stop gateway', 'native install', 'resume gateway'],
  );
  assert.equal(h.stages.stage(), 'running');
  assert.deepEqual(h.notes, ['Tollgate: the update did not install: Code signature did not pass validation']);
  assert.equal(h.closeWindow(), false, 'closing the window hides it to the tray again');
  h.stages.updateFailed('a second report');
  assert.equal(h.order.filter((l) => l === 'resume gateway').length, 1, 'resumed once');

  const later = setup();
  later.stages.updateFailed('an error outside an install');
  assert.deepEqual(later.order, [], 'updater errors outside an install change nothing');
});

test('an updater that never quits the app: after the timeout the gateway runs again', async () => {
  const h = setup();
  await h.stages.installUpdate(() => undefined);
  h.fire(INSTALL_TIMEOUT_MS);
  await tick();
  assert.ok(h.order.includes('resume gateway'));
  assert.equal(h.stages.stage(), 'running');
  assert.match(h.notes[0]!, /did not install: nothing happened within 180 s/);
});

test('an updater that throws: the gateway runs again', async () => {
  const h = setup();
  await h.stages.installUpdate(() => {
    throw new Error('No update filepath provided');
  });
  await tick();
  assert.ok(h.order.includes('resume gateway'));
  assert.equal(h.stages.stage(), 'running');
});

test('a quit asked for while the install prepares is absorbed; the install goes on and its quit passes', async () => {
  const h = setup();
  h.hold();
  const installing = h.stages.installUpdate(() => h.app.quit());
  h.app.quit();
  assert.equal(h.quitted(), false);
  h.release();
  await installing;
  assert.equal(h.quitted(), true);
  assert.deepEqual(h.order, ['stop gateway']);
  await h.stages.installUpdate(() => assert.fail('a second install does nothing'));
});

test('session end: the gateway stops with the short grace and the app quits', async () => {
  const h = setup();
  await h.stages.sessionEnding();
  assert.deepEqual(h.order, ['stop gateway now', 'quit']);
  assert.equal(h.quitted(), true);
  await h.stages.sessionEnding();
  assert.deepEqual(h.order, ['stop gateway now', 'quit'], 'a second notice changes nothing');
});

test('session end while an install prepares: no install, the app quits', async () => {
  const h = setup();
  h.hold();
  const installing = h.stages.installUpdate(() => assert.fail('no install at session end'));
  const ending = h.stages.sessionEnding();
  h.release();
  await Promise.all([installing, ending]);
  assert.equal(h.quitted(), true);
  assert.deepEqual(h.order, ['stop gateway', 'stop gateway now', 'quit']);
});

test('session end once the updater has the app: only the quit is left', async () => {
  const h = setup();
  await h.stages.installUpdate(() => undefined);
  await h.stages.sessionEnding();
  assert.deepEqual(h.order, ['stop gateway', 'quit']);
  assert.equal(h.quitted(), true);
});
