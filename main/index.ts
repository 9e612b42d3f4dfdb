/**
 * The Electron main process: lifecycle wiring only. The logic is in the modules it wires:
 * supervisor.ts and gateway-process.ts (the gateway), live-feed.ts and state.ts (what the tray
 * shows), tray.ts, window.ts, ipc.ts, updates.ts, quit-stages.ts (how the app ends), platform.ts,
 * app-log.ts. docs/desktop.md describes the whole.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, clipboard, ipcMain, Notification, powerMonitor, shell } from 'electron';
import { AppLog, logDir } from './app-log.js';
import { findRunningGateway } from './attach.js';
import { Controller } from './controller.js';
import { gatewayApi } from './gateway-api.js';
import { spawnGateway } from './gateway-host.js';
import { registerIpc } from './ipc.js';
import { claimSingleInstance } from './lifecycle.js';
import { LiveFeed } from './live-feed.js';
import { LoginItem } from './login-item.js';
import { appBindHost, SQLITE_BINDING_ENV } from '../gateway/desktop.js';
import { appFiles, electronSqliteBinding, resolveDataDir, sessionDataDir } from './paths.js';
import { HIDDEN_ARG, launchedAtLogin, startCommand } from './platform.js';
import { createQuitStages } from './quit-stages.js';
import { canListen, restartForSettings } from './restart.js';
import { loadSettings, saveSettings } from './settings.js';
import { Supervisor } from './supervisor.js';
import { TrayView } from './tray.js';
import type { Updates } from './updates.js';
import { ConsoleWindow } from './window.js';

/** How long quitting waits for requests in flight before the gateway process is killed. */
const QUIT_GRACE_MS = 30_000;
/** The same at the end of the OS session, which does not wait half a minute. */
const SESSION_END_GRACE_MS = 4_000;

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
// A data dir chosen with TOLLGATE_DATA_DIR is an instance of its own (a test, a portable setup):
// Electron's userData, which holds the single-instance lock, goes with it.
if (process.env.TOLLGATE_DATA_DIR) app.setPath('userData', sessionDataDir(dataDir));
const files = appFiles(app.getAppPath());
// From source, better-sqlite3 must load the copy built for Electron's ABI (.ci/electron-native.ts,
// which `npm start` runs); main's data-dir lock check and the gateway process both read this.
const electronVersion = process.versions.electron;
const sqliteForElectron =
  app.isPackaged || !electronVersion
    ? undefined
    : electronSqliteBinding(app.getAppPath(), electronVersion, process.platform, process.arch);
if (sqliteForElectron && existsSync(sqliteForElectron)) process.env[SQLITE_BINDING_ENV] = sqliteForElectron;

// A closed terminal must not turn the echo of the log into an exception in main.
process.stdout.on('error', () => undefined);
const appLog = new AppLog(
  logDir(process.env, process.env.TOLLGATE_DATA_DIR ? dataDir : app.getPath('logs'), dataDir),
  undefined,
  undefined,
  (line) => process.stdout.write(`[tollgate] ${line}`),
);
function log(message: string): void {
  appLog.write(message);
}
log(`Tollgate ${app.getVersion()} starting (${process.platform} ${process.arch}); data dir ${dataDir}`);
if (sqliteForElectron && !process.env[SQLITE_BINDING_ENV])
  log(`no better-sqlite3 built for this Electron at ${sqliteForElectron}: run "npm start", which builds it`);
process.on('uncaughtException', (err) => log(`uncaught exception in main: ${err.stack ?? String(err)}`));
process.on('unhandledRejection', (reason) =>
  log(`unhandled rejection in main: ${(reason as Error)?.stack ?? String(reason)}`),
);

const loginItem = new LoginItem({
  platform: process.platform,
  // Windows keys its login items by their arguments: ask with the same ones we register.
  getOs: () => app.getLoginItemSettings(process.platform === 'win32' ? { args: [HIDDEN_ARG] } : undefined).openAtLogin,
  setOs: (on) =>
    app.setLoginItemSettings({ openAtLogin: on, ...(process.platform === 'win32' ? { args: [HIDDEN_ARG] } : {}) }),
  autostartDir: join(process.env.XDG_CONFIG_HOME || join(app.getPath('home'), '.config'), 'autostart'),
  command: startCommand({
    appImage: process.env.APPIMAGE,
    packaged: app.isPackaged,
    execPath: process.execPath,
    appPath: app.getAppPath(),
    noSandbox: app.commandLine.hasSwitch('no-sandbox'),
  }),
});

let tray: TrayView | null = null;
/** The window opens by itself once, when the gateway first runs, unless started at login (decided after ready). */
let openWhenRunning = false;
let updates: Updates | null = null;
let feed: LiveFeed | null = null;

function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body }).show();
}

const loaded = loadSettings(dataDir);
if (loaded.warning) log(loaded.warning);
/** An older desktop.json's port and threshold, handed to our gateway process until it has taken them over. */
let carried = loaded.carried;
/** After a restart the console asked for, the console opens again on this page of the new origin. */
let reopenConsoleOn: string | undefined;

const consoleWindow = new ConsoleWindow({
  preload: files.preload,
  icon: files.icon,
  devTools: !app.isPackaged,
  quitting: () => quitStages.quitting(),
  log,
  windowState: () => controller.settings.window,
  saveWindowState: (window) => {
    controller.settings = { ...controller.settings, window };
    saveSettings(dataDir, controller.settings);
  },
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

function openLogFolder(): void {
  mkdirSync(appLog.dir, { recursive: true });
  void shell.openPath(appLog.dir).then((error) => {
    if (error) notify('Tollgate: the log folder did not open', `${error} (${appLog.dir})`);
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
  retryGateway: () => void supervisor.retry(),
  openLogFolder,
  quit: () => app.quit(),
  log,
});

const supervisor = new Supervisor({
  findRunning: () => findRunningGateway(dataDir),
  spawn: () => spawnGateway(files.gatewayEntry, dataDir, carried, log),
  onPhase: (phase, endpoint) => {
    feed?.stop();
    feed = null;
    controller.api = endpoint ? gatewayApi(endpoint.url, endpoint.token) : null;
    controller.dispatch({ type: 'phase', phase });
    if (phase.kind === 'running') log(`gateway running at ${phase.url}${phase.owned ? '' : ' (attached)'}`);
    if (phase.kind === 'running' && phase.owned && carried) {
      // Our gateway process has carried them into its settings (its log says how): desktop.json drops them.
      carried = undefined;
      saveSettings(dataDir, controller.settings);
      log("desktop.json's port and low-balance threshold are the gateway's settings now");
    }
    if (phase.kind === 'restarting')
      log(`gateway stopped (${phase.reason}); restart ${phase.attempt} in ${phase.inMs} ms`);
    if (phase.kind === 'failed') {
      log(`gateway failed ${phase.failures} times in a row (${phase.reason}); not restarting until asked`);
      notify('Tollgate: the gateway cannot start', `${phase.reason}. The tray menu can try again.`);
    }
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
    } else if (phase.kind === 'running' && reopenConsoleOn !== undefined) {
      const page = reopenConsoleOn;
      reopenConsoleOn = undefined;
      openConsole(page);
    }
  },
  setTimer,
  now: Date.now,
});

const quitStages = createQuitStages({
  stopGateway: async () => {
    updates?.stop();
    feed?.stop();
    await supervisor.stop(QUIT_GRACE_MS);
  },
  stopGatewayNow: async () => {
    updates?.stop();
    feed?.stop();
    await supervisor.stop(SESSION_END_GRACE_MS);
  },
  resumeGateway: async () => {
    updates?.start();
    await supervisor.resume();
  },
  quit: () => app.quit(),
  setTimer,
  notify,
  log,
});

/**
 * The end of the OS session. Windows tells windows only, and the console window may never have
 * been opened: a window that is never shown or loaded (it has no renderer process) listens for it.
 * Linux and macOS tell `powerMonitor`. Either way the app holds the OS back where it can and quits
 * with a short grace for the gateway (quit-stages.ts).
 */
function watchSessionEnd(): void {
  const ending = (why: string) => (event?: { preventDefault?: () => void }) => {
    event?.preventDefault?.();
    log(`the session is ending (${why}); stopping the gateway`);
    void quitStages.sessionEnding();
  };
  if (process.platform === 'win32') {
    const watcher = new BrowserWindow({
      show: false,
      width: 1,
      height: 1,
      skipTaskbar: true,
      focusable: false,
      webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false },
    });
    watcher.on('query-session-end', (e) => ending(`query-session-end: ${e.reasons.join(', ')}`)(e));
    watcher.on('session-end', (e) => ending(`session-end: ${e.reasons.join(', ')}`)(e));
  } else {
    powerMonitor.on('shutdown', ending('shutdown') as () => void);
  }
}

async function whenReady(): Promise<void> {
  // Read after ready: macOS knows whether this was a login launch only then (platform.ts).
  openWhenRunning = !(await launchedAtLogin(app, process.argv, process.platform));
  await app.whenReady();
  tray = new TrayView(
    files.trayDir,
    (action) => void controller.run(action),
    () => openConsole(),
  );
  log('tray created');
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
    restartGateway: () =>
      restartForSettings({
        phase: () => supervisor.current.phase,
        settings: async () => {
          if (!controller.api) throw new Error('The gateway is not running.');
          return controller.api.call('getSettings');
        },
        bindHost: (host) => appBindHost(host).host,
        canListen,
        restart: () => {
          reopenConsoleOn = '/settings';
          log('restarting the gateway to apply its address and port settings');
          void supervisor.restart(QUIT_GRACE_MS);
        },
      }),
    log,
  });
  watchSessionEnd();
  await supervisor.start();
  setRepeat(() => controller.dispatch({ type: 'clock', now: Date.now() }), 60_000);
  if (app.isPackaged) {
    // Loaded only when packaged: unpackaged runs have no release feed to check.
    const { Updates, installModeOf } = await import('./updates.js');
    const { autoUpdater } = (await import('electron-updater')).default;
    const say = (m: unknown): void => log(`updater: ${String(m)}`);
    autoUpdater.logger = { info: say, warn: say, error: say, debug: () => undefined };
    const mode = installModeOf(JSON.parse(readFileSync(join(app.getAppPath(), 'package.json'), 'utf8')));
    if (mode.kind === 'download-page') log(`updates: offered from ${mode.releasesUrl} (this build is signed ad hoc)`);
    updates = new Updates(autoUpdater, {
      mode,
      openExternal: (url) => shell.openExternal(url),
      report: (update) => controller.dispatch({ type: 'update', update }),
      notify,
      log,
      handOver: (install) => quitStages.installUpdate(install),
      failed: (message) => quitStages.updateFailed(message),
      setTimer,
      setRepeat,
    });
    updates.start();
  }
}

if (!claimSingleInstance(app, () => openConsole())) {
  // Another Tollgate runs for this user; it opens its window instead.
  log('another Tollgate runs for this user; quitting');
  app.quit();
} else {
  app.on('before-quit', (event) => quitStages.onBeforeQuit(event));
  app.on('will-quit', () => log('quitting'));
  // Closing the last window leaves Tollgate in the tray.
  app.on('window-all-closed', () => undefined);
  app.on('activate', () => openConsole());
  whenReady().catch((err: unknown) => {
    log(`start-up failed: ${(err as Error).stack ?? String(err)}`);
    app.exit(1);
  });
}
