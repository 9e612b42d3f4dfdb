/**
 * Main's side of the gateway process. The gateway runs in an Electron utility process, not in
 * main itself (docs/desktop.md, "Why a utility process"):
 * - a busy gateway (translation, SQLite writes, big JSON bodies) never stalls the tray or window;
 * - a crash in it (a native module, an out-of-memory) leaves the app up to show it and restart it;
 * - Electron's RunAsNode fuse is off, so child_process.fork of our own binary is not an option,
 *   and a utility process is Electron's supported way to run a Node service.
 * What main makes of the process's events is gateway-process.ts, tested without Electron.
 */
import { utilityProcess } from 'electron';
import { gatewayArgs, type CarriedSettings } from '../gateway/desktop.js';
import { superviseProcess } from './gateway-process.js';
import type { GatewayChild } from './supervisor.js';

/** Host and port are the gateway's settings; `carried`: an older desktop.json's settings for it to take over. */
export function spawnGateway(
  entry: string,
  dataDir: string,
  carried: CarriedSettings | undefined,
  log: (line: string) => void,
): GatewayChild {
  const proc = utilityProcess.fork(entry, gatewayArgs(dataDir, carried), {
    serviceName: 'Tollgate gateway',
    stdio: 'pipe',
  });
  return superviseProcess(proc, {
    log,
    setTimer: (fn, ms) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  });
}
