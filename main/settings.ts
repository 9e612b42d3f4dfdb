/**
 * The desktop app's own preferences, in `desktop.json` beside the gateway's config in the data
 * dir. Launch-at-login is not kept here: the OS's login items are the truth (login-item.ts).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface NotificationSettings {
  lowBalance: boolean;
  keyQuota: boolean;
  lineDown: boolean;
}
export type NoticeKind = keyof NotificationSettings;

export interface DesktopSettings {
  notifications: NotificationSettings;
  /** Below this balance the tray shows "low balance" and notifies, micro-USD. */
  lowBalanceMicro: number;
  /** The gateway's port: tools are configured with it, so it does not move by itself. */
  port: number;
}

export const DEFAULT_SETTINGS: DesktopSettings = {
  notifications: { lowBalance: true, keyQuota: true, lineDown: true },
  lowBalanceMicro: 1_000_000,
  port: 4141,
};

export const SETTINGS_FILE = 'desktop.json';

function bool(v: unknown, d: boolean): boolean {
  return typeof v === 'boolean' ? v : d;
}

function int(v: unknown, d: number, min: number, max: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : d;
}

/** Fills what is missing or malformed with the defaults, field by field. */
export function normalise(raw: unknown): DesktopSettings {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const n = (o.notifications && typeof o.notifications === 'object' ? o.notifications : {}) as Record<string, unknown>;
  const d = DEFAULT_SETTINGS;
  return {
    notifications: {
      lowBalance: bool(n.lowBalance, d.notifications.lowBalance),
      keyQuota: bool(n.keyQuota, d.notifications.keyQuota),
      lineDown: bool(n.lineDown, d.notifications.lineDown),
    },
    lowBalanceMicro: int(o.lowBalanceMicro, d.lowBalanceMicro, 0, Number.MAX_SAFE_INTEGER),
    port: int(o.port, d.port, 0, 65535),
  };
}

/** Reads the settings; a file that is not JSON is kept aside as desktop.json.bad and defaults apply. */
export function loadSettings(dataDir: string): { settings: DesktopSettings; warning?: string } {
  const path = join(dataDir, SETTINGS_FILE);
  if (!existsSync(path)) return { settings: normalise({}) };
  try {
    return { settings: normalise(JSON.parse(readFileSync(path, 'utf8'))) };
  } catch (err) {
    renameSync(path, path + '.bad');
    return {
      settings: normalise({}),
      warning: `${path} was not valid JSON (${(err as Error).message}); kept as ${SETTINGS_FILE}.bad, defaults used.`,
    };
  }
}

/** Writes atomically (a temp file renamed over the old one). */
export function saveSettings(dataDir: string, settings: DesktopSettings): void {
  const path = join(dataDir, SETTINGS_FILE);
  writeFileSync(path + '.tmp', JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
  renameSync(path + '.tmp', path);
}
