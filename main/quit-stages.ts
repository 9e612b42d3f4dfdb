/**
 * How Tollgate ends: an ordinary quit, a quit to install an update, and the end of the OS session.
 * One small state machine, free of Electron, so each order of events is tested
 * (test/main/quit-stages.test.ts). Its rule throughout: the gateway stops cleanly before the app
 * goes (requests in flight settle and are written to the ledger), and a stop that does not end in
 * the app going away leaves the gateway running again, never stopped for good.
 *
 * - **Quit** (tray, Cmd-Q, the OS asking): `before-quit` is held back until the gateway has
 *   stopped, then the quit goes through. Repeated quits meanwhile are absorbed.
 * - **Restart to install**: the gateway stops first, then the updater takes over. On macOS the
 *   native updater (Squirrel.Mac) closes every window before `before-quit` is emitted; the close
 *   handler must let them close (`quitting()` is already true), or the close-to-tray rule would
 *   veto the close and with it the whole install. When the updater reports an error, or nothing
 *   has quit the app after `INSTALL_TIMEOUT_MS`, the install has failed: the gateway runs again.
 * - **Session end** (logoff, shutdown, restart): the OS kills what is still running soon after, and
 *   an ordinary quit's grace (30 s) is longer than it waits. The app holds the OS back where it
 *   can (the caller prevents the event), stops the gateway with a short grace, and quits. It quits
 *   even if the user then cancels the shutdown: a stopped gateway must not be left behind.
 */

export type QuitStage =
  /** Normal life: closing the window hides it to the tray. */
  | 'running'
  /** A quit is held back while the gateway stops. */
  | 'stopping'
  /** An update install: the gateway is stopping before the updater takes over. */
  | 'preparing-install'
  /** The updater has the app: windows may close and the quit it makes goes through. */
  | 'installing'
  /** The gateway is down; the quit goes through. */
  | 'done';

export interface Preventable {
  preventDefault(): void;
}

export interface QuitStagesDeps {
  /** Stops the gateway (requests in flight settle first) and what talks to it. */
  stopGateway(): Promise<void>;
  /** The same at session end: a grace short enough for the OS. */
  stopGatewayNow(): Promise<void>;
  /** Runs the gateway again after an install that did not happen. */
  resumeGateway(): Promise<void>;
  /** Quits for real (called again once the gateway is down; the handler then lets it through). */
  quit(): void;
  setTimer(fn: () => void, ms: number): () => void;
  notify(title: string, body: string): void;
  log(message: string): void;
}

/** How long the updater may take to quit the app (Squirrel.Mac first fetches the update from main). */
export const INSTALL_TIMEOUT_MS = 3 * 60_000;

export interface QuitStages {
  stage(): QuitStage;
  /** Whether windows may really close (true from the first step of any quit or install). */
  quitting(): boolean;
  /** The `before-quit` handler. */
  onBeforeQuit(event: Preventable): void;
  /** "Restart to install": stops the gateway, then calls `install` (the updater's quitAndInstall). */
  installUpdate(install: () => void): Promise<void>;
  /** The updater gave up (its `error` event); only matters while an install is under way. */
  updateFailed(message: string): void;
  /** The OS session ends (Windows `query-session-end` / `session-end`, `powerMonitor` `shutdown`). */
  sessionEnding(): Promise<void>;
}

export function createQuitStages(deps: QuitStagesDeps): QuitStages {
  let stage: QuitStage = 'running';
  let cancelInstallTimer: (() => void) | null = null;
  let sessionStop: Promise<void> | null = null;

  const failInstall = (why: string): void => {
    if (stage !== 'installing' && stage !== 'preparing-install') return;
    cancelInstallTimer?.();
    cancelInstallTimer = null;
    stage = 'running';
    deps.log(`the update did not install: ${why}; the gateway runs again`);
    deps.notify('Tollgate: the update did not install', why);
    deps.resumeGateway().catch((err: unknown) => deps.log(`restarting the gateway failed: ${(err as Error).message}`));
  };

  return {
    stage: () => stage,
    quitting: () => stage !== 'running',

    onBeforeQuit(event) {
      if (stage === 'done') return;
      if (stage === 'installing') {
        // The updater quits the app: the gateway is already down.
        cancelInstallTimer?.();
        cancelInstallTimer = null;
        stage = 'done';
        return;
      }
      event.preventDefault();
      if (stage !== 'running') return;
      stage = 'stopping';
      deps
        .stopGateway()
        .catch((err: unknown) => deps.log(`stopping the gateway failed: ${(err as Error).message}`))
        .finally(() => {
          stage = 'done';
          deps.quit();
        });
    },

    async installUpdate(install) {
      if (stage !== 'running') return;
      stage = 'preparing-install';
      try {
        await deps.stopGateway();
      } catch (err) {
        deps.log(`stopping the gateway before the update failed: ${(err as Error).message}`);
      }
      if (stage !== 'preparing-install') return;
      stage = 'installing';
      cancelInstallTimer = deps.setTimer(
        () => failInstall(`nothing happened within ${INSTALL_TIMEOUT_MS / 1000} s`),
        INSTALL_TIMEOUT_MS,
      );
      try {
        install();
      } catch (err) {
        failInstall((err as Error).message);
      }
    },

    updateFailed(message) {
      failInstall(message);
    },

    sessionEnding() {
      if (sessionStop) return sessionStop;
      cancelInstallTimer?.();
      cancelInstallTimer = null;
      if (stage === 'done' || stage === 'installing') {
        // The gateway is down already; only the quit is left.
        stage = 'done';
        deps.quit();
        return Promise.resolve();
      }
      // From running, a quit under way or an install being prepared (which then does not go on).
      stage = 'stopping';
      sessionStop = deps
        .stopGatewayNow()
        .catch((err: unknown) => deps.log(`stopping the gateway at session end failed: ${(err as Error).message}`))
        .finally(() => {
          stage = 'done';
          deps.quit();
        });
      return sessionStop;
    },
  };
}
