import type { BodyStore } from '../store/bodies.js';
import type { ConfigStore } from '../store/config.js';
import type { Ledger } from '../store/ledger.js';
import { settingsOf } from '../store/settings.js';

const DAY_MS = 86_400_000;
/** How often retention runs while the gateway is up (it also runs at start and when the setting changes). */
export const RETENTION_EVERY_MS = 60 * 60 * 1000;

/**
 * Applies the retentionDays setting: usage-log rows older than that many days keep only their
 * daily money totals (store/ledger-prune.ts), and the request bodies of that age go. Returns the
 * number of log rows pruned.
 */
export function applyRetention(config: ConfigStore, ledger: Ledger, bodies: BodyStore, now = Date.now()): number {
  const days = settingsOf(config.data).retentionDays;
  if (days === null) return 0;
  const before = now - days * DAY_MS;
  bodies.prune(before);
  return ledger.prune(before).rows;
}

/** Runs applyRetention now and then every hour until the returned function stops it. */
export function startRetention(config: ConfigStore, ledger: Ledger, bodies: BodyStore): () => void {
  const run = (): void => {
    try {
      applyRetention(config, ledger, bodies);
    } catch (err) {
      // A busy or full disk must not stop the gateway; the next run tries again.
      process.emitWarning(`Tollgate: pruning the usage log failed: ${(err as Error).message}`);
    }
  };
  run();
  const timer = setInterval(run, RETENTION_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
