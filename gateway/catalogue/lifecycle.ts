/**
 * Retirement: a model whose vendor announced a shutdown date is `retiring` until that day and
 * `retired` from it (00:00 UTC). A retired model stays listed, with what to use instead, but is not
 * served: a request for it is refused with a message naming the replacement, unless an alias
 * steers the id elsewhere.
 */
import type { CatalogueModel } from './catalogue.js';

export type ModelStatus = 'active' | 'retiring' | 'retired';

/** Shutdown dates as epoch ms: admission asks on every request, and the catalogue holds a few hundred dates at most. */
const shutdowns = new Map<string, number>();

export function modelStatus(m: Pick<CatalogueModel, 'retires'>, now: number): ModelStatus {
  if (!m.retires) return 'active';
  let at = shutdowns.get(m.retires);
  if (at === undefined) {
    at = Date.parse(`${m.retires}T00:00:00Z`);
    if (shutdowns.size >= 10_000) shutdowns.clear();
    shutdowns.set(m.retires, at);
  }
  return at <= now ? 'retired' : 'retiring';
}

export function isRetired(m: Pick<CatalogueModel, 'retires'>, now: number): boolean {
  return modelStatus(m, now) === 'retired';
}
