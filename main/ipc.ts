/**
 * Main's half of the bridge (bridge.ts): one handler per allow-listed channel, answering only the
 * console window's top frame on the gateway's origin; arguments are checked, not trusted.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { LIMITS, type Channel, type RestartAnswer } from './bridge.js';
import { isExternalLink, isTrustedSender } from './web-security.js';

export interface IpcDeps {
  ipcMain: Pick<IpcMain, 'handle'>;
  /** The console window's webContents id and the origin it should be on, when it exists. */
  console(): { webContentsId: number; origin: string } | null;
  openExternal(url: string): Promise<void>;
  copyText(text: string): void;
  getLaunchAtLogin(): boolean;
  setLaunchAtLogin(on: boolean): boolean;
  notify(title: string, body: string): void;
  restartGateway(): Promise<RestartAnswer>;
  log(message: string): void;
}

export class IpcRefused extends Error {}

function text(v: unknown, max: number, what: string): string {
  if (typeof v !== 'string' || v.length > max)
    throw new IpcRefused(`${what} must be a string of at most ${max} characters`);
  return v;
}

export function registerIpc(deps: IpcDeps): void {
  const handlers: Record<Channel, (...args: unknown[]) => unknown> = {
    'tollgate:open-external': async (url) => {
      const u = text(url, LIMITS.url, 'url');
      if (!isExternalLink(u)) throw new IpcRefused('only https:// links open outside Tollgate');
      await deps.openExternal(u);
    },
    'tollgate:copy-text': (t) => deps.copyText(text(t, LIMITS.copyText, 'text')),
    'tollgate:login-item-get': () => deps.getLaunchAtLogin(),
    'tollgate:login-item-set': (on) => {
      if (typeof on !== 'boolean') throw new IpcRefused('launch at login takes true or false');
      return deps.setLaunchAtLogin(on);
    },
    'tollgate:notify': (title, body) =>
      deps.notify(text(title, LIMITS.title, 'title'), text(body, LIMITS.body, 'body')),
    'tollgate:restart-gateway': () => deps.restartGateway(),
  };
  for (const [channel, handler] of Object.entries(handlers)) {
    deps.ipcMain.handle(channel, (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      const c = deps.console();
      const frame = event.senderFrame;
      const sender = {
        webContentsId: event.sender.id,
        frameUrl: frame?.url ?? null,
        isMainFrame: !!frame && frame === event.sender.mainFrame,
      };
      if (!isTrustedSender(sender, c?.webContentsId, c?.origin)) {
        deps.log(`refused IPC ${channel} from ${sender.frameUrl ?? 'a gone frame'}`);
        throw new IpcRefused(`${channel} is answered only for the Tollgate console`);
      }
      return handler(...args);
    });
  }
}
