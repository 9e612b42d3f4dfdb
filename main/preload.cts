/**
 * The console window's preload: exposes `window.tollgate` (bridge.ts), a small allow-listed API,
 * never ipcRenderer itself. It runs sandboxed, so it is CommonJS and self-contained (a sandboxed
 * preload may require only `electron`); the channel names are checked against bridge.ts by the
 * type checker.
 */
import electron = require('electron');
import type { Channel, CONSOLE_ARG, TollgateBridge } from './bridge.js';

// A copy, not an import (see above); its type makes the type checker hold it equal to bridge.ts.
const ARG: typeof CONSOLE_ARG = '--tollgate-console=';
const consoleUrl = process.argv.find((a) => a.startsWith(ARG))?.slice(ARG.length) ?? '';

function invoke<T>(channel: Channel, ...args: unknown[]): Promise<T> {
  return electron.ipcRenderer.invoke(channel, ...args) as Promise<T>;
}

const bridge: TollgateBridge = {
  consoleUrl,
  openExternal: (url) => invoke('tollgate:open-external', String(url)),
  copyText: (text) => invoke('tollgate:copy-text', String(text)),
  launchAtLogin: {
    get: () => invoke('tollgate:login-item-get'),
    set: (enabled) => invoke('tollgate:login-item-set', enabled === true),
  },
  notify: (title, body) => invoke('tollgate:notify', String(title), String(body)),
  restartGateway: () => invoke('tollgate:restart-gateway'),
};

// Only the console itself gets the bridge; main refuses the calls from anywhere else as well.
const here = (globalThis as { location?: { origin: string } }).location?.origin;
if (consoleUrl !== '' && here === consoleUrl) electron.contextBridge.exposeInMainWorld('tollgate', bridge);
