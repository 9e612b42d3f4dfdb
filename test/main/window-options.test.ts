import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONSOLE_ARG } from '../../main/bridge.js';
import { CONSOLE_PARTITION, consoleWindowOptions } from '../../main/window-options.js';

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
