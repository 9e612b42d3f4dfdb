/**
 * The Electron main process: lifecycle wiring only. The logic is in the modules it wires:
 * supervisor.ts (the gateway), live-feed.ts and state.ts (what the tray shows), tray.ts,
 * window.ts, ipc.ts, updates.ts, lifecycle.ts. docs/desktop.md describes the whole.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { app, clipboard, ipcMain, Notification, shell } from 'electron';
import { findRunningGateway } from './attach.js';
import { Controller } from './controller.js';
import { gatewayApi } from './gateway-api.js';
import { spawnGateway } from './gateway-host.js';
import { registerIpc } from './ipc.js';
import { claimSingleInstance, createQuitHandler } from './lifecycle.js';
import { LiveFeed } from './live-feed.js';
import { LoginItem } from './login-item.js';
import { appFiles, resolveDataDir, sessionDataDir } from './paths.js';
import { loadSettings } from './settings.js';
import { Supervisor } from './supervisor.js';
import { TrayView } from './tray.js';
import type { Updates } from './updates.js';
import { ConsoleWindow } from './window.js';

/** How long quitting waits for requests in flight before the gateway process is killed. */
const QUIT_GRACE_MS = 30_000;

function log(message: string): void {
  process.stdout.write(`[tollgate] ${message}\n`);
}

function setTimer(fn: () => void, ms: number): () => void {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
}

function setRepeat(fn: () => void, ms: number): () => void {
  const t = setInterval(fn, ms);
  t.unref();
  return () => clearInterval(t);
}

// Windows shows notifications only for an app with an AppUserModelID (the installer's app id).
if (process.platform === 'win32') app.setAppUserModelId('dev.tollgate.app');
const dataDir = resolveDataDir(process.env, app.getPath('userData'));
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
// Chromium's cookies and caches go to a folder of their own, not beside the ledger.
app.setPath('sessionData', sessionDataDir(dataDir));
const files = appFiles(app.getAppPath());
/** Started by the OS at login: stay in the tray. */
const LOGIN_ARGS = ['--hidden'];
const startHidden =
  process.argv.includes(LOGIN_ARGS[0]!) ||
  (process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin);

const loginItem = new LoginItem({
  platform: process.platform,
  // Windows keys its login items by their arguments: ask with the same ones we register.
  getOs: () => app.getLoginItemSettings(process.platform === 'win32' ? { args: LOGIN_ARGS } : undefined).openAtLogin,
  setOs: (on) =>
    app.setLoginItemSettings({ openAtLogin: on, ...(process.platform === 'win32' ? { args: LOGIN_ARGS } : {}) }),
  autostartDir: join(process.env.XDG_CONFIG_HOME || join(app.getPath('home'), '.config'), 'autostart'),
  // An AppImage runs from a temporary mount: autostart must name the AppImage file itself. From
  // source, the Electron binary needs the app's folder.
  command: process.env.APPIMAGE
    ? [process.env.APPIMAGE]
    : app.isPackaged
      ? [process.execPath]
      : [process.execPath, app.getAppPath()],
});

let tray: TrayView | null = null;
/** The window opens by itself once, when the gateway first runs, unless started at login. */
let openWhenRunning = !startHidden;
let updates: Updates | null = null;
let feed: LiveFeed | null = null;

function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body }).show();
}

const loaded = loadSettings(dataDir);
if (loaded.warning) log(loaded.warning);

const consoleWindow = new ConsoleWindow({
  preload: files.preload,
  icon: files.icon,
  devTools: !app.isPackaged,
  quitting: () => quit.quitting(),
  log,
});

/** `page`: a console route such as `/connect` (tray-menu.ts); the start page when absent. */
function openConsole(page?: string): void {
  const api = controller.api;
  if (!api) {
    notify('Tollgate', 'The gateway is not running yet; the tray menu says why.');
    return;
  }
  consoleWindow.show(api, page).catch((err: unknown) => {
    log(`opening the console failed: ${(err as Error).message}`);
    notify('Tollgate: the console did not open', (err as Error).message);
  });
}

/**
 * Tray redraws are coalesced: under load every request's log event changes the state, and
 * rebuilding a native menu hundreds of times a second would be the busiest thing main does.
 */
const RENDER_EVERY_MS = 200;
let renderTimer: NodeJS.Timeout | null = null;
function scheduleRender(): void {
  if (renderTimer) return;
  renderTimer = setTimeout(() => {
    renderTimer = null;
    tray?.render({
      state: controller.state,
      settings: controller.settings,
      launchAtLogin: loginItem.get(),
      now: Date.now(),
    });
  }, RENDER_EVERY_MS);
}

const controller = new Controller(dataDir, loaded.settings, {
  render: scheduleRender,
  notify,
  copyText: (text) => clipboard.writeText(text),
  openConsole,
  getLaunchAtLogin: () => loginItem.get(),
  setLaunchAtLogin: (on) => loginItem.set(on),
  checkUpdates: () => void updates?.check(),
  downloadUpdate: () => void updates?.download(),
  installUpdate: () => void updates?.install(),
  quit: () => app.quit(),
  log,
});

const supervisor = new Supervisor({
  findRunning: () => findRunningGateway(dataDir),
  spawn: () => spawnGateway(files.gatewayEntry, dataDir, controller.settings.port, log),
  onPhase: (phase, endpoint) => {
    feed?.stop();
    feed = null;
    controller.api = endpoint ? gatewayApi(endpoint.url, endpoint.token) : null;
    controller.dispatch({ type: 'phase', phase });
    if (phase.kind === 'restarting')
      log(`gateway stopped (${phase.reason}); restart ${phase.attempt} in ${phase.inMs} ms`);
    if (controller.api) {
      feed = new LiveFeed(
        controller.api,
        (action) => controller.dispatch(action),
        () => void supervisor.lost(),
      );
      feed.start();
    }
    if (phase.kind === 'running' && openWhenRunning) {
      openWhenRunning = false;
      openConsole();
    }
  },
  setTimer,
  now: Date.now,
});

const quit = createQuitHandler({
  stopGateway: async () => {
    updates?.stop();
    feed?.stop();
    await supervisor.stop(QUIT_GRACE_MS);
  },
  quit: () => app.quit(),
  log,
});

async function whenReady(): Promise<void> {
  await app.whenReady();
  tray = new TrayView(
    files.trayDir,
    (action) => void controller.run(action),
    () => openConsole(),
  );
  controller.render();
  registerIpc({
    ipcMain,
    console: () => consoleWindow.identity(),
    openExternal: (url) => shell.openExternal(url),
    copyText: (text) => clipboard.writeText(text),
    getLaunchAtLogin: () => loginItem.get(),
    setLaunchAtLogin: (on) => {
      const now = loginItem.set(on);
      controller.render();
      return now;
    },
    notify,
    log,
  });
  await supervisor.start();
  setRepeat(() => controller.dispatch({ type: 'clock', now: Date.now() }), 60_000);
  if (app.isPackaged) {
    // Loaded only when packaged: unpackaged runs have no release feed to check.
    const { Updates } = await import('./updates.js');
    const { autoUpdater } = (await import('electron-updater')).default;
    updates = new Updates(autoUpdater, {
      report: (update) => controller.dispatch({ type: 'update', update }),
      notify,
      log,
      beforeInstall: () => supervisor.stop(QUIT_GRACE_MS),
      setTimer,
      setRepeat,
    });
    updates.start();
  }
}

if (!claimSingleInstance(app, () => openConsole())) {
  // Another Tollgate runs for this user; it opens its window instead.
  app.quit();
} else {
  app.on('before-quit', (event) => quit.onBeforeQuit(event));
  // Closing the last window leaves Tollgate in the tray.
  app.on('window-all-closed', () => undefined);
  app.on('activate', () => openConsole());
  whenReady().catch((err: unknown) => {
    log(`start-up failed: ${(err as Error).stack ?? String(err)}`);
    app.exit(1);
  });
}
