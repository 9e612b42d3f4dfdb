import type { BrowserWindowConstructorOptions } from 'electron';
import { CONSOLE_ARG } from './bridge.js';

/** The console window's session: its own partition, so its cookie jar holds only the console session. */
export const CONSOLE_PARTITION = 'persist:console';

export interface ConsoleWindowInput {
  preload: string;
  icon: string | undefined;
  consoleOrigin: string;
  /** DevTools only when running from source. */
  devTools: boolean;
}

/**
 * The console window: sandboxed renderer with context isolation and no Node, the preload's bridge
 * the only way to main (docs/desktop.md, "Security"). Shown once the page is ready, to avoid a
 * white flash.
 */
export function consoleWindowOptions(input: ConsoleWindowInput): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 820,
    minHeight: 560,
    show: false,
    title: 'Tollgate',
    autoHideMenuBar: true,
    ...(input.icon ? { icon: input.icon } : {}),
    webPreferences: {
      preload: input.preload,
      partition: CONSOLE_PARTITION,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: input.devTools,
      additionalArguments: [CONSOLE_ARG + input.consoleOrigin],
    },
  };
}
