/**
 * Main's view of one gateway process, free of Electron: it turns the process (Electron's
 * UtilityProcess, or anything shaped like it) into the `GatewayChild` the supervisor drives.
 *
 * Every event the process can emit has a listener here. An `'error'` event without one would be
 * thrown by Node's EventEmitter in main, as "A JavaScript error occurred in the main process",
 * which is exactly the crash the utility process exists to contain (docs/desktop.md, "Why a
 * utility process"). Electron emits `'error'` when V8 hits a fatal error in the process (out of
 * memory, for one) and promises an `'exit'` after it; should the exit not come, the process is
 * killed and counted as exited all the same, so the supervisor is never left waiting.
 */
import type { FromGateway, ToGateway } from '../gateway/desktop.js';
import type { Endpoint, GatewayChild } from './supervisor.js';

/** The part of Electron's UtilityProcess used here. */
export interface ProcessLike {
  on(event: 'exit', listener: (code: number) => void): unknown;
  on(event: 'error', listener: (type: string, location: string, report: string) => void): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  postMessage(message: unknown): void;
  kill(): boolean;
}

export interface GatewayProcessDeps {
  /** One line of the gateway's output or of main's account of it (for the app log). */
  log(line: string): void;
  setTimer(fn: () => void, ms: number): () => void;
}

/** Lines of the gateway's output kept to explain an exit. */
export const TAIL_LINES = 20;
/** After a fatal error, how long the promised exit may take before the process is killed. */
export const EXIT_AFTER_ERROR_MS = 5_000;

/** The tray's words for a fatal error. The diagnostic report is not included: it lists the environment. */
export function describeFatal(type: string, location: string): string {
  const where = location ? ` at ${location.slice(0, 200)}` : '';
  return `the gateway process hit a fatal error (${type || 'unknown'}${where})`;
}

export function superviseProcess(proc: ProcessLike, deps: GatewayProcessDeps): GatewayChild {
  const tail: string[] = [];
  /** The gateway's own account of why it stops: its "failed" message or a fatal error. */
  let failure: string | undefined;
  const collect = (chunk: Buffer | string): void => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      deps.log(`[gateway] ${line}`);
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  };
  for (const stream of [proc.stdout, proc.stderr]) {
    stream?.on('data', collect);
    // A pipe that breaks as the process dies is no reason to throw in main.
    stream?.on('error', (err: Error) => deps.log(`[gateway] output stream: ${err.message}`));
  }

  let resolveReady: (ep: Endpoint) => void = () => undefined;
  const ready = new Promise<Endpoint>((r) => (resolveReady = r));
  let resolveExited: (v: { code: number | null; reason: string }) => void = () => undefined;
  const exited = new Promise<{ code: number | null; reason: string }>((r) => (resolveExited = r));
  let done = false;
  let cancelKill: (() => void) | undefined;
  const finish = (code: number | null): void => {
    if (done) return;
    done = true;
    cancelKill?.();
    const reason = failure ?? (tail.length ? tail[tail.length - 1]! : `the gateway process exited with code ${code}`);
    resolveExited({ code, reason });
  };

  proc.on('exit', (code) => finish(code));
  proc.on('error', (type, location) => {
    failure = describeFatal(type, location);
    deps.log(`[gateway] ${failure}`);
    cancelKill ??= deps.setTimer(() => {
      if (done) return;
      deps.log(`[gateway] no exit ${EXIT_AFTER_ERROR_MS} ms after the fatal error; killing it`);
      try {
        proc.kill();
      } catch {
        // Already gone.
      }
      finish(null);
    }, EXIT_AFTER_ERROR_MS);
  });
  proc.on('message', (raw) => {
    const msg = raw as FromGateway | null;
    if (msg?.type === 'ready' && typeof msg.url === 'string' && typeof msg.token === 'string')
      resolveReady({ url: msg.url, token: msg.token });
    else if (msg?.type === 'failed' && typeof msg.message === 'string') failure = msg.message;
  });

  return {
    ready,
    exited,
    async stop(graceMs) {
      if (done) return;
      const stop: ToGateway = { type: 'stop' };
      try {
        proc.postMessage(stop);
      } catch (err) {
        deps.log(`[gateway] could not ask it to stop: ${(err as Error).message}`);
      }
      let cancel: () => void = () => undefined;
      const gaveUp = new Promise<'timeout'>((r) => (cancel = deps.setTimer(() => r('timeout'), graceMs)));
      const outcome = await Promise.race([exited, gaveUp]);
      cancel();
      if (outcome === 'timeout') {
        deps.log(`[gateway] did not stop within ${graceMs} ms; killing it`);
        try {
          proc.kill();
        } catch {
          // Already gone.
        }
        await exited;
      }
    },
  };
}
