/**
 * The console window: one at a time, hardened (window-options.ts, web-security.ts), logged in with
 * a one-time code from the gateway, and hidden to the tray when closed.
 */
import { BrowserWindow, screen, session, shell, type Session } from 'electron';
import type { AdminClient } from '../gateway/contract/admin/index.js';
import { closeToTray } from './lifecycle.js';
import type { WindowState } from './settings.js';
import { CONSOLE_PARTITION, consoleWindowOptions, placement } from './window-options.js';
import {
  CONSOLE_CSP,
  consolePageUrl,
  isExternalLink,
  navigationVerdict,
  originOf,
  permissionAllowed,
  requestAllowed,
} from './web-security.js';

export interface ConsoleWindowDeps {
  preload: string;
  icon: string | undefined;
  devTools: boolean;
  quitting(): boolean;
  log(message: string): void;
  /** Where the window was when last closed (desktop.json), and keeping it. */
  windowState(): WindowState | null;
  saveWindowState(state: WindowState): void;
}

/** Applies the rules of web-security.ts to the console's session; `origin()` is read per request. */
export function hardenSession(ses: Session, origin: () => string | undefined, log: (m: string) => void): void {
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => {
    const ok = permissionAllowed(permission, details?.requestingUrl, details?.isMainFrame ?? false, origin());
    if (!ok) log(`denied the console's permission request: ${permission}`);
    callback(ok);
  });
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin, details) =>
    permissionAllowed(permission, details?.requestingUrl ?? requestingOrigin, details?.isMainFrame ?? false, origin()),
  );
  ses.webRequest.onBeforeRequest((details, callback) => {
    const o = origin();
    const ok = o !== undefined && requestAllowed(details.url, o);
    if (!ok) log(`blocked a request from the console to ${details.url.slice(0, 200)}`);
    callback({ cancel: !ok });
  });
  ses.webRequest.onHeadersReceived((details, callback) => {
    if (originOf(details.url) !== origin()) return callback({});
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONSOLE_CSP] } });
  });
  ses.on('will-download', (event, item) => {
    const url = item.getURL();
    const o = origin();
    if (o === undefined || !(originOf(url) === o || url.startsWith(`blob:${o}/`))) event.preventDefault();
  });
}

export class ConsoleWindow {
  private win: BrowserWindow | null = null;
  private origin: string | undefined;
  private hardened = false;

  constructor(private readonly deps: ConsoleWindowDeps) {}

  /** For IPC checks: the window's webContents and the origin it should be on. */
  identity(): { webContentsId: number; origin: string } | null {
    return this.win && !this.win.isDestroyed() && this.origin
      ? { webContentsId: this.win.webContents.id, origin: this.origin }
      : null;
  }

  /**
   * Shows the console of the gateway `api` talks to, logging in with a fresh one-time code; on
   * `page` (a route of the console's hash router, such as `/connect`) when given.
   */
  async show(api: AdminClient, page?: string): Promise<void> {
    const origin = originOf(api.baseUrl)!;
    if (this.win && !this.win.isDestroyed() && this.origin === origin) {
      this.win.show();
      this.win.focus();
      if (page !== undefined) await this.win.loadURL(consolePageUrl((await api.call('createLoginCode')).url, page));
      return;
    }
    this.win?.destroy();
    this.origin = origin;
    const ses = session.fromPartition(CONSOLE_PARTITION);
    if (!this.hardened) {
      hardenSession(ses, () => this.origin, this.deps.log);
      this.hardened = true;
    }
    const saved = this.deps.windowState();
    const win = new BrowserWindow(
      consoleWindowOptions({
        preload: this.deps.preload,
        icon: this.deps.icon,
        consoleOrigin: origin,
        devTools: this.deps.devTools,
        placement: placement(
          saved,
          screen.getAllDisplays().map((d) => d.workArea),
        ),
      }),
    );
    this.win = win;
    this.guard(win);
    win.once('ready-to-show', () => {
      if (saved?.maximized) win.maximize();
      win.show();
    });
    await win.loadURL(consolePageUrl((await api.call('createLoginCode')).url, page));
  }

  private guard(win: BrowserWindow): void {
    const wc = win.webContents;
    const onNavigate = (event: { preventDefault(): void }, url: string): void => {
      const verdict = navigationVerdict(url, this.origin ?? '');
      if (verdict === 'allow') return;
      event.preventDefault();
      if (verdict === 'open-external') void shell.openExternal(url);
      else this.deps.log(`blocked navigation of the console to ${url.slice(0, 200)}`);
    };
    wc.on('will-navigate', onNavigate);
    wc.on('will-redirect', onNavigate);
    wc.on('will-attach-webview', (event) => event.preventDefault());
    wc.setWindowOpenHandler(({ url }) => {
      if (isExternalLink(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    win.on('close', (event) => {
      // Kept when it is closed (to the tray, or as the app quits): the next window opens there.
      try {
        this.deps.saveWindowState({ ...win.getNormalBounds(), maximized: win.isMaximized() });
      } catch (err) {
        this.deps.log(`the window's place was not kept: ${(err as Error).message}`);
      }
      closeToTray(event, this.deps.quitting(), () => win.hide());
    });
    win.on('closed', () => {
      if (this.win === win) this.win = null;
    });
  }

  /** After a restart on another port the old page is useless: drop it. */
  forget(): void {
    this.win?.destroy();
    this.win = null;
    this.origin = undefined;
  }
}
