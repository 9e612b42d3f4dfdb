/**
 * App lifecycle rules that need no Electron: one instance per user, closing the window keeps
 * Tollgate in the tray, and quitting waits for the gateway to stop (requests in flight settle).
 */

export interface InstanceApp {
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: () => void): unknown;
}

/**
 * Takes the single-instance lock. A second launch gets false (it should quit at once) and the
 * first instance hears of it through `onSecondLaunch` (it shows its window).
 */
export function claimSingleInstance(app: InstanceApp, onSecondLaunch: () => void): boolean {
  if (!app.requestSingleInstanceLock()) return false;
  app.on('second-instance', onSecondLaunch);
  return true;
}

export interface Preventable {
  preventDefault(): void;
}

/** The window's close button hides it to the tray, except while the app quits. */
export function closeToTray(event: Preventable, quitting: boolean, hide: () => void): void {
  if (quitting) return;
  event.preventDefault();
  hide();
}

export interface QuitDeps {
  /** Stops the gateway; requests in flight settle first. */
  stopGateway(): Promise<void>;
  /** Quits for real (called again once the gateway is down; the handler then lets it through). */
  quit(): void;
  log(message: string): void;
}

/**
 * The `before-quit` handler: the first quit is held back until the gateway has stopped, then
 * quitting goes ahead. Further quit requests meanwhile are absorbed.
 */
export function createQuitHandler(deps: QuitDeps): { onBeforeQuit(event: Preventable): void; quitting(): boolean } {
  let stage: 'running' | 'stopping' | 'done' = 'running';
  return {
    quitting: () => stage !== 'running',
    onBeforeQuit(event) {
      if (stage === 'done') return;
      event.preventDefault();
      if (stage === 'stopping') return;
      stage = 'stopping';
      deps
        .stopGateway()
        .catch((err: unknown) => deps.log(`stopping the gateway failed: ${(err as Error).message}`))
        .finally(() => {
          stage = 'done';
          deps.quit();
        });
    },
  };
}
