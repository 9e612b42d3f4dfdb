/**
 * The desktop app's own preferences, in `desktop.json` beside the gateway's config in the data
 * dir: which notifications to show, and where the console window was. What the gateway also serves (its host and port, the
 * low-balance threshold) is the gateway's settings (`/api/settings`, config.json), read by the
 * tray and `tollgate serve` alike; launch at login is the OS's login items (login-item.ts).
 *
 * Older versions kept the port and the threshold here. They are read once as `carried` and moved
 * into the gateway's settings by its process (gateway/desktop.ts, settingsToCarry); the next save
 * leaves them out.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CarriedSettings } from '../gateway/desktop.js';

export interface NotificationSettings {
  lowBalance: boolean;
  keyQuota: boolean;
  lineDown: boolean;
}
export type NoticeKind = keyof NotificationSettings;

/** The console window's size and place when it was last closed (its normal bounds when maximized). */
export interface WindowState {
  width: number;
  height: number;
  x: number;
  y: number;
  maximized: boolean;
}

export interface DesktopSettings {
  notifications: NotificationSettings;
  /** Null until the window has been closed once: it opens at its default size, centred. */
  window: WindowState | null;
}

export const DEFAULT_SETTINGS: DesktopSettings = {
  notifications: { lowBalance: true, keyQuota: true, lineDown: true },
  window: null,
};

export const SETTINGS_FILE = 'desktop.json';

function bool(v: unknown, d: boolean): boolean {
  return typeof v === 'boolean' ? v : d;
}

function int(v: unknown, min: number, max: number): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
}

function record(v: unknown): Record<string, unknown> {
  return (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
}

/** Screen coordinates can be negative (a display left of or above the main one), never absurd. */
const COORD = 100_000;

function windowOf(raw: unknown): WindowState | null {
  const w = record(raw);
  const width = int(w.width, 200, COORD);
  const height = int(w.height, 150, COORD);
  const x = int(w.x, -COORD, COORD);
  const y = int(w.y, -COORD, COORD);
  if (width === undefined || height === undefined || x === undefined || y === undefined) return null;
  return { width, height, x, y, maximized: bool(w.maximized, false) };
}

/** Fills what is missing or malformed with the defaults, field by field. */
export function normalise(raw: unknown): DesktopSettings {
  const o = record(raw);
  const n = record(o.notifications);
  const d = DEFAULT_SETTINGS;
  return {
    notifications: {
      lowBalance: bool(n.lowBalance, d.notifications.lowBalance),
      keyQuota: bool(n.keyQuota, d.notifications.keyQuota),
      lineDown: bool(n.lineDown, d.notifications.lineDown),
    },
    window: windowOf(o.window),
  };
}

/** The port and threshold an older desktop.json holds (well-formed ones only), to carry into the gateway's settings. */
export function carriedOf(raw: unknown): CarriedSettings | undefined {
  const o = record(raw);
  const carried: CarriedSettings = {};
  const port = int(o.port, 0, 65535);
  const low = int(o.lowBalanceMicro, 0, Number.MAX_SAFE_INTEGER);
  if (port !== undefined) carried.port = port;
  if (low !== undefined) carried.lowBalanceMicro = low;
  return 'port' in o || 'lowBalanceMicro' in o ? carried : undefined;
}

export interface LoadedSettings {
  settings: DesktopSettings;
  /** Present while desktop.json still holds an older version's port or threshold. */
  carried?: CarriedSettings;
  warning?: string;
}

/** Reads the settings; a file that is not JSON is kept aside as desktop.json.bad and defaults apply. */
export function loadSettings(dataDir: string): LoadedSettings {
  const path = join(dataDir, SETTINGS_FILE);
  if (!existsSync(path)) return { settings: normalise({}) };
  try {
    const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const carried = carriedOf(raw);
    return carried ? { settings: normalise(raw), carried } : { settings: normalise(raw) };
  } catch (err) {
    renameSync(path, path + '.bad');
    return {
      settings: normalise({}),
      warning: `${path} was not valid JSON (${(err as Error).message}); kept as ${SETTINGS_FILE}.bad, defaults used.`,
    };
  }
}

/** Writes atomically (a temp file renamed over the old one); only the fields of DesktopSettings are written. */
export function saveSettings(dataDir: string, settings: DesktopSettings): void {
  const path = join(dataDir, SETTINGS_FILE);
  writeFileSync(path + '.tmp', JSON.stringify(normalise(settings), null, 2) + '\n', { mode: 0o600 });
  renameSync(path + '.tmp', path);
}
