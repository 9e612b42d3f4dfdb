/**
 * The one contract between the console window and the main process. The preload (preload.cts)
 * implements `TollgateBridge` on top of these channels and nothing else; main (ipc.ts) answers
 * exactly these channels, and only for the console's own top frame. Types only: a sandboxed
 * preload cannot load a second file at run time.
 */

/** What the console sees as `window.tollgate` inside the desktop app. */
export interface TollgateBridge {
  /** The gateway origin the console was loaded from, e.g. `http://127.0.0.1:4141`. */
  readonly consoleUrl: string;
  /** Opens an https:// link in the user's browser (any other scheme is refused). */
  openExternal(url: string): Promise<void>;
  /** Puts text on the system clipboard. */
  copyText(text: string): Promise<void>;
  launchAtLogin: {
    get(): Promise<boolean>;
    set(enabled: boolean): Promise<boolean>;
  };
  /** A desktop notification (shown unless the user turned notifications off). */
  notify(title: string, body: string): Promise<void>;
  /**
   * Restarts the app's own gateway process so that it binds the host and port its settings name
   * now; the console window is then opened again on the gateway's (new) origin. Refused, with the
   * reason, for a gateway the app attached to, or when the new port is taken.
   */
  restartGateway(): Promise<RestartAnswer>;
}

export type RestartAnswer = { restarting: true } | { restarting: false; reason: string };

export const CHANNELS = [
  'tollgate:open-external',
  'tollgate:copy-text',
  'tollgate:login-item-get',
  'tollgate:login-item-set',
  'tollgate:notify',
  'tollgate:restart-gateway',
] as const;
export type Channel = (typeof CHANNELS)[number];

/** The argument the preload finds the console origin in (webPreferences.additionalArguments). */
export const CONSOLE_ARG = '--tollgate-console=';

/** Limits on what the renderer may pass, checked in main (ipc.ts). */
export const LIMITS = { copyText: 100_000, title: 120, body: 600, url: 4096 } as const;
