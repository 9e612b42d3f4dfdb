/**
 * The gateway process of the desktop app, loaded by its entry point desktop-child.ts: the Electron
 * utility process that main starts by that file's path (main/gateway-host.ts, main/paths.ts). It runs the same `serve()` as
 * `tollgate serve`, on the host and port of the same settings, and closes it when main says stop: `serve().close()` stops
 * accepting connections, closes idle ones, and waits for requests in flight to finish (and be
 * written to the ledger) before it closes the ledger; main kills the process if that takes longer
 * than its grace period (main/index.ts).
 */
import {
  appBindHost,
  describeStartError,
  parseGatewayArgs,
  settingsToCarry,
  type FromGateway,
  type ToGateway,
} from './desktop.js';
import type { Gateway } from './compose/gateway.js';
import { serve, type Running } from './serve.js';
import { settingsOf } from './store/settings.js';

/** The part of Electron's utility-process `parentPort` used here (gateway/ never imports electron). */
interface ParentPort {
  postMessage(message: FromGateway): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}

const port: ParentPort | undefined = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;
if (!port) throw new Error('desktop-child runs only as an Electron utility process');
const parent: ParentPort = port;

function send(msg: FromGateway): void {
  parent.postMessage(msg);
}

const args = parseGatewayArgs(process.argv);

/**
 * Before listening: the old desktop settings main passed are carried into the gateway's settings
 * once, and the bind address is one the app's console can reach. Host and port are otherwise the
 * gateway's settings, as for `tollgate serve` (docs/desktop.md, "Settings").
 */
async function beforeListen(g: Gateway): Promise<{ host: string }> {
  const { change, notes } = settingsToCarry(g.config.data.settings, args.carried);
  if (Object.keys(change).length > 0) await g.config.update((d) => void (d.settings = { ...d.settings, ...change }));
  const bind = appBindHost(settingsOf(g.config.data).host);
  for (const note of bind.note ? [...notes, bind.note] : notes) process.stderr.write(`Tollgate gateway: ${note}\n`);
  return { host: bind.host };
}

const started: Promise<Running> = serve({ dataDir: args.dataDir, beforeListen, releaseStartupMemory: true });
let stopping = false;

/** Closes the gateway once it has started (or failed to), then ends the process. */
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    // close() closes idle keep-alive connections at once and lets requests in flight finish, within
    // a grace period shorter than main's (shutdown.ts).
    await (await started).close();
  } catch {
    // It never started: nothing to close.
  } finally {
    process.exit(0);
  }
}

parent.on('message', (e) => {
  const msg = e.data as ToGateway;
  if (msg?.type === 'stop') void stop();
});

try {
  const running = await started;
  if (!stopping) send({ type: 'ready', url: running.url, token: running.adminToken });
} catch (err) {
  const message = describeStartError(err);
  process.stderr.write(`Tollgate gateway failed to start: ${message}\n`);
  send({ type: 'failed', message });
  process.exit(1);
}
