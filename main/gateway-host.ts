/**
 * Main's side of the gateway process. The gateway runs in an Electron utility process, not in
 * main itself (docs/desktop.md, "Why a utility process"):
 * - a busy gateway (translation, SQLite writes, big JSON bodies) never stalls the tray or window;
 * - a crash in it (a native module, an out-of-memory) leaves the app up to show it and restart it;
 * - Electron's RunAsNode fuse is off, so child_process.fork of our own binary is not an option,
 *   and a utility process is Electron's supported way to run a Node service.
 */
import { utilityProcess } from 'electron';
import { gatewayArgs, type FromGateway, type ToGateway } from '../gateway/desktop.js';
import type { Endpoint, GatewayChild } from './supervisor.js';

/** Lines of the gateway's stderr kept to explain an exit. */
const TAIL_LINES = 20;

export function spawnGateway(entry: string, dataDir: string, port: number, log: (line: string) => void): GatewayChild {
  const proc = utilityProcess.fork(entry, gatewayArgs(dataDir, port), {
    serviceName: 'Tollgate gateway',
    stdio: 'pipe',
  });
  const tail: string[] = [];
  let failure: string | undefined;
  const collect = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      log(`[gateway] ${line}`);
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);

  let resolveReady: (ep: Endpoint) => void = () => {};
  const ready = new Promise<Endpoint>((r) => (resolveReady = r));
  const exited = new Promise<{ code: number | null; reason: string }>((resolve) => {
    proc.once('exit', (code: number) => {
      const reason = failure ?? (tail.length ? tail[tail.length - 1]! : `the gateway process exited with code ${code}`);
      resolve({ code, reason });
    });
  });
  proc.on('message', (msg: FromGateway) => {
    if (msg?.type === 'ready') resolveReady({ url: msg.url, token: msg.token });
    else if (msg?.type === 'failed') failure = msg.message;
  });

  return {
    ready,
    exited,
    async stop(graceMs) {
      const stop: ToGateway = { type: 'stop' };
      proc.postMessage(stop);
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), graceMs)));
      const outcome = await Promise.race([exited, gaveUp]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        log(`[gateway] did not stop within ${graceMs} ms; killing it`);
        proc.kill();
        await exited;
      }
    },
  };
}
