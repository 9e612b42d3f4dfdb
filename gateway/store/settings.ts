/**
 * The gateway's settings, kept in config.json under `settings` (absent fields take the defaults
 * below, so a config written before settings existed reads as the defaults). docs/admin-api.md
 * ("Settings") says what each one does and when it takes effect.
 */
import type { ConfigData } from './types.js';

export interface Settings {
  /** Where `tollgate serve` binds at its next start when no --host is given. */
  host: string;
  /** The port it listens on at its next start when no --port is given. */
  port: number;
  /** Days a usage-log row is kept in full; null keeps every row. */
  retentionDays: number | null;
  /** Keep each model request's body (for the log's details panel); off unless turned on. */
  storeBodies: boolean;
  /** Keep Responses conversations for `previous_response_id` when a client asks (`store`). */
  storeResponses: boolean;
  /** The wallet warns (console, tray) below this balance; null: never. */
  lowBalanceMicro: number | null;
  /** A PEM file of certificate authorities upstream TLS trusts besides Node's own (upstream/trust.ts); null: none. */
  caFile: string | null;
  /** Trust the operating system's certificate store too, where the runtime can read it. */
  systemCa: boolean;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = {
  host: '127.0.0.1',
  port: 4141,
  retentionDays: null,
  storeBodies: false,
  storeResponses: true,
  lowBalanceMicro: 1_000_000,
  caFile: null,
  systemCa: false,
};

/** The settings in force: what the config holds over the defaults. */
export function settingsOf(data: ConfigData): Settings {
  return { ...DEFAULT_SETTINGS, ...data.settings };
}
