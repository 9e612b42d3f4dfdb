import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HIDDEN_ARG, launchedAtLogin, startCommand, trayClickOpensConsole } from '../../main/platform.js';

test('a tray click opens the console on Windows and Linux, never on macOS (the click opens the menu there)', () => {
  assert.equal(trayClickOpensConsole('darwin'), false);
  assert.equal(trayClickOpensConsole('win32'), true);
  assert.equal(trayClickOpensConsole('linux'), true);
});

/** Like Electron's app on macOS: the login launch is known only once the app is ready. */
function macApp(openedAtLogin: boolean) {
  let ready = false;
  let reads = 0;
  let markReady: () => void = () => undefined;
  const whenReady = new Promise<void>((r) => (markReady = r));
  return {
    whenReady: () => whenReady,
    getLoginItemSettings: () => {
      reads++;
      return { openAtLogin: true, wasOpenedAtLogin: ready && openedAtLogin };
    },
    becomeReady() {
      ready = true;
      markReady();
    },
    reads: () => reads,
  };
}

test('macOS: "opened at login" is read only after ready, so a login launch stays in the tray', async () => {
  const app = macApp(true);
  assert.equal(app.getLoginItemSettings().wasOpenedAtLogin, false, 'read before ready, it is always false');
  const before = app.reads();
  const hidden = launchedAtLogin(app, ['/Applications/Tollgate.app/Contents/MacOS/Tollgate'], 'darwin');
  await new Promise((r) => setImmediate(r));
  assert.equal(app.reads(), before, 'nothing is read before ready');
  app.becomeReady();
  assert.equal(await hidden, true);

  const byHand = macApp(false);
  byHand.becomeReady();
  assert.equal(await launchedAtLogin(byHand, ['Tollgate'], 'darwin'), false, 'opened by the user: show the window');
});

test('Windows and Linux: the login item passes --hidden; nothing else is asked', async () => {
  const app = macApp(true);
  assert.equal(await launchedAtLogin(app, ['Tollgate.exe', HIDDEN_ARG], 'win32'), true);
  assert.equal(await launchedAtLogin(app, ['tollgate'], 'linux'), false);
  assert.equal(app.reads(), 0);
});

test('the autostart command: the AppImage file (with --no-sandbox when it runs so), the binary, or Electron and the source folder', () => {
  const base = { execPath: '/opt/Tollgate/tollgate', appPath: '/src/tollgate', noSandbox: false };
  assert.deepEqual(startCommand({ ...base, appImage: '/home/me/Tollgate.AppImage', packaged: true }), [
    '/home/me/Tollgate.AppImage',
  ]);
  assert.deepEqual(startCommand({ ...base, appImage: '/home/me/Tollgate.AppImage', packaged: true, noSandbox: true }), [
    '/home/me/Tollgate.AppImage',
    '--no-sandbox',
  ]);
  assert.deepEqual(startCommand({ ...base, appImage: undefined, packaged: true }), ['/opt/Tollgate/tollgate']);
  assert.deepEqual(startCommand({ ...base, appImage: undefined, packaged: false }), [
    '/opt/Tollgate/tollgate',
    '/src/tollgate',
  ]);
});
