/**
 * Where the three desktop platforms differ in how the app starts and what the tray does, as pure
 * functions (test/main/platform.test.ts); index.ts and tray.ts apply them.
 */

/** The argument a login item starts Tollgate with: stay in the tray. */
export const HIDDEN_ARG = '--hidden';

/**
 * Whether a click on the tray icon opens the console. Not on macOS: there a click opens the
 * context menu, and a `click` listener beside it would also raise the window on every click.
 * On Windows a left click opens the console and a right click the menu. Linux desktops show the
 * menu themselves and mostly report no click at all.
 */
export function trayClickOpensConsole(platform: NodeJS.Platform): boolean {
  return platform !== 'darwin';
}

export interface LaunchApp {
  whenReady(): Promise<unknown>;
  getLoginItemSettings(): { wasOpenedAtLogin?: boolean };
}

/**
 * Whether the OS started Tollgate at login, so it should stay in the tray. Windows and Linux
 * login items pass `--hidden`. macOS passes no arguments; it says so in the launch event, which
 * Electron has read only once the app is `ready`: `wasOpenedAtLogin` read before that is always
 * false. So this waits for `ready` before asking.
 */
export async function launchedAtLogin(
  app: LaunchApp,
  argv: readonly string[],
  platform: NodeJS.Platform,
): Promise<boolean> {
  if (argv.includes(HIDDEN_ARG)) return true;
  if (platform !== 'darwin') return false;
  await app.whenReady();
  return app.getLoginItemSettings().wasOpenedAtLogin === true;
}

export interface StartCommandInput {
  /** `process.env.APPIMAGE`: set when running from an AppImage. */
  appImage: string | undefined;
  packaged: boolean;
  execPath: string;
  appPath: string;
  /** Whether this run has Chromium's sandbox off (`--no-sandbox`, see below). */
  noSandbox: boolean;
}

/**
 * The command a Linux autostart entry runs. An AppImage runs from a temporary mount, so the entry
 * names the AppImage file itself; run with `--no-sandbox` (the AppImage workaround on Ubuntu 24.04
 * and later, docs/desktop.md), it must start at login the same way or it would not start at all.
 * Packaged otherwise, the binary; from source, the Electron binary with the app's folder.
 */
export function startCommand(i: StartCommandInput): string[] {
  if (i.appImage) return i.noSandbox ? [i.appImage, '--no-sandbox'] : [i.appImage];
  return i.packaged ? [i.execPath] : [i.execPath, i.appPath];
}
