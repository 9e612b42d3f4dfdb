/**
 * Restarting the app's own gateway so that new host and port settings apply (the console's
 * Settings page asks through the bridge). Before the running gateway is stopped, the new address
 * is tried: a port another program holds is refused with the reason, and the gateway keeps running
 * where it is, rather than being stopped for a process that cannot start. Electron-free.
 */
import { createServer } from 'node:net';
import type { RestartAnswer } from './bridge.js';
import type { GatewayPhase } from './state.js';

/** Whether this machine lets a program listen at host:port now; the reason in words when not. */
export function canListen(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve(`port ${port} is in use by another program`);
      else if (err.code === 'EACCES') resolve(`this user may not listen on port ${port}`);
      else if (err.code === 'EADDRNOTAVAIL') resolve(`${host} is not an address of this machine`);
      else resolve(`${host}:${port} cannot be listened on (${err.message})`);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

export interface RestartDeps {
  phase(): GatewayPhase;
  /** Host and port the gateway's settings name now (GET /api/settings). */
  settings(): Promise<{ host: string; port: number }>;
  /** Where the app's gateway binds for a host setting (gateway/desktop.ts appBindHost). */
  bindHost(host: string): string;
  canListen(host: string, port: number): Promise<string | null>;
  /** Stops our gateway process and starts it again (supervisor.restart). */
  restart(): void;
}

/** Decides, and starts, a restart the console asked for. */
export async function restartForSettings(deps: RestartDeps): Promise<RestartAnswer> {
  const phase = deps.phase();
  if (phase.kind !== 'running') return { restarting: false, reason: 'The gateway is not running.' };
  if (!phase.owned)
    return {
      restarting: false,
      reason:
        'This console runs on a gateway started outside the app (tollgate serve); restart it where it runs to apply the address and port.',
    };
  const want = await deps.settings();
  const host = deps.bindHost(want.host);
  // The port it holds now is free once it stops (a probe of it would fail on the gateway itself);
  // another port is tried first.
  if (want.port !== 0 && Number(new URL(phase.url).port) !== want.port) {
    const problem = await deps.canListen(host, want.port);
    if (problem)
      return { restarting: false, reason: `Not restarted: ${problem}. The gateway keeps running on ${phase.url}.` };
  }
  deps.restart();
  return { restarting: true };
}
