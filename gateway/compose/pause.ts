import { GatewayError } from '../core/errors.js';

/**
 * Whether the model API is paused (`POST /api/gateway/pause`, the tray, `tollgate pause`). While it
 * is, every request to the model API gets a 503 before it is authenticated or billed; the admin API
 * and the console keep working, and requests already in flight finish.
 *
 * Kept in memory, so a restarted gateway runs: pausing is a decision for now ("stop my tools"), and
 * a gateway that came back paused after a crash, an update or a reboot would fail every tool with
 * nobody having asked it to (docs/admin-api.md, "Pause").
 */
export class PauseSwitch {
  private on = false;
  private readonly listeners = new Set<(paused: boolean) => void>();

  get paused(): boolean {
    return this.on;
  }

  set(paused: boolean): void {
    if (paused === this.on) return;
    this.on = paused;
    for (const fn of this.listeners) fn(paused);
  }

  /** Calls `fn` on every change, in order; returns how to stop. */
  onChange(fn: (paused: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

/** The answer to a model request while paused, in each client's own error shape (503, not retried by the SDKs). */
export function pausedError(): GatewayError {
  return new GatewayError(
    'upstream_unavailable',
    'Tollgate is paused: model requests are refused until it is resumed (tray menu "Resume gateway", or "tollgate resume").',
    {
      code: 'gateway_paused',
    },
  );
}
