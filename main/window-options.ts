import type { BrowserWindowConstructorOptions } from 'electron';
import { CONSOLE_ARG } from './bridge.js';
import type { WindowState } from './settings.js';

/** The console window's session: its own partition, so its cookie jar holds only the console session. */
export const CONSOLE_PARTITION = 'persist:console';

export interface ConsoleWindowInput {
  preload: string;
  icon: string | undefined;
  consoleOrigin: string;
  /** DevTools only when running from source. */
  devTools: boolean;
  /** Where it opens (placement()); the default size, centred, when absent. */
  placement?: Placement;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Placement = { width: number; height: number; x?: number; y?: number };

export const DEFAULT_SIZE = { width: 1280, height: 820 } as const;
export const MIN_SIZE = { width: 820, height: 560 } as const;
/** Of the window's top edge (its title bar), at least this much must lie on a display to open there. */
const GRIP = { width: 120, height: 40 } as const;

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  };
}

/**
 * Where the console window opens: the size it was closed at (no smaller than the minimum, no larger
 * than the display it lands on), at the same place if its title bar still lies on a display
 * (a monitor since unplugged leaves it centred on the main one instead).
 */
export function placement(saved: WindowState | null, workAreas: readonly Rect[]): Placement {
  if (!saved) return { ...DEFAULT_SIZE };
  const titleBar: Rect = { x: saved.x, y: saved.y, width: saved.width, height: GRIP.height };
  const on = workAreas.find((a) => {
    const o = overlap(titleBar, a);
    return o.width >= Math.min(GRIP.width, saved.width) && o.height >= GRIP.height;
  });
  const area = on ?? workAreas[0];
  const fit = (v: number, min: number, max: number | undefined): number =>
    Math.max(min, max === undefined ? v : Math.min(v, max));
  const size = {
    width: fit(saved.width, MIN_SIZE.width, area?.width),
    height: fit(saved.height, MIN_SIZE.height, area?.height),
  };
  return on ? { ...size, x: saved.x, y: saved.y } : size;
}

/**
 * The console window: sandboxed renderer with context isolation and no Node, the preload's bridge
 * the only way to main (docs/desktop.md, "Security"). Shown once the page is ready, to avoid a
 * white flash.
 */
export function consoleWindowOptions(input: ConsoleWindowInput): BrowserWindowConstructorOptions {
  return {
    ...(input.placement ?? DEFAULT_SIZE),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
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
