import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONSOLE_ARG } from '../../main/bridge.js';
import { CONSOLE_PARTITION, consoleWindowOptions, placement } from '../../main/window-options.js';

test('the console window is sandboxed, context-isolated and has no Node', () => {
  const o = consoleWindowOptions({
    preload: '/app/dist/main/preload.cjs',
    icon: '/app/assets/icon.png',
    consoleOrigin: 'http://127.0.0.1:4141',
    devTools: false,
  });
  const w = o.webPreferences!;
  assert.equal(w.contextIsolation, true);
  assert.equal(w.sandbox, true);
  assert.equal(w.nodeIntegration, false);
  assert.equal(w.nodeIntegrationInWorker, false);
  assert.equal(w.nodeIntegrationInSubFrames, false);
  assert.equal(w.webSecurity, true);
  assert.equal(w.allowRunningInsecureContent, false);
  assert.equal(w.webviewTag, false);
  assert.equal(w.devTools, false);
  assert.equal(w.preload, '/app/dist/main/preload.cjs');
  assert.equal(w.partition, CONSOLE_PARTITION);
  assert.deepEqual(w.additionalArguments, [`${CONSOLE_ARG}http://127.0.0.1:4141`]);
  assert.equal(o.show, false, 'shown when ready, not as a blank window');
});

test('the window opens where it was closed, if that is still on a display; else at its size, centred', () => {
  const main = { x: 0, y: 0, width: 1920, height: 1040 };
  const left = { x: -1280, y: 0, width: 1280, height: 984 };
  assert.deepEqual(placement(null, [main]), { width: 1280, height: 820 }, 'never closed: the default');
  const there = { width: 1000, height: 700, x: -1200, y: 30, maximized: false };
  assert.deepEqual(placement(there, [main, left]), { width: 1000, height: 700, x: -1200, y: 30 });
  assert.deepEqual(placement(there, [main]), { width: 1000, height: 700 }, 'its display was unplugged');
  assert.deepEqual(
    placement({ width: 3000, height: 300, x: 0, y: 0, maximized: false }, [main]),
    { width: 1920, height: 560, x: 0, y: 0 },
    'no wider than the display, no smaller than the minimum',
  );
  assert.deepEqual(
    placement({ width: 1000, height: 700, x: 1900, y: 30, maximized: false }, [main]),
    { width: 1000, height: 700 },
    'only a sliver of the title bar on screen',
  );
  const o = consoleWindowOptions({
    preload: '/p',
    icon: undefined,
    consoleOrigin: 'http://127.0.0.1:4141',
    devTools: false,
    placement: { width: 1000, height: 700, x: 5, y: 6 },
  });
  assert.deepEqual([o.width, o.height, o.x, o.y, o.minWidth, o.minHeight], [1000, 700, 5, 6, 820, 560]);
});
