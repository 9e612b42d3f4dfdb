/**
 * App lifecycle rules that need no Electron: one instance per user, and closing the window keeps
 * Tollgate in the tray. How the app ends (quit, update, session end) is quit-stages.ts.
 */
import type { Preventable } from './quit-stages.js';

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

/** The window's close button hides it to the tray, except while the app quits. */
export function closeToTray(event: Preventable, quitting: boolean, hide: () => void): void {
  if (quitting) return;
  event.preventDefault();
  hide();
}
