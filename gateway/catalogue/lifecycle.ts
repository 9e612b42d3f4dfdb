/**
 * Retirement: a model whose vendor announced a shutdown date is `retiring` until that day and
 * `retired` from it (00:00 UTC). A retired model stays listed, with what to use instead, but is not
 * served: a request for it is refused with a message naming the replacement, unless an alias
 * steers the id elsewhere.
 */
import type { CatalogueModel } from './catalogue.js';

export type ModelStatus = 'active' | 'retiring' | 'retired';

export function modelStatus(m: Pick<CatalogueModel, 'retires'>, now: number): ModelStatus {
  if (!m.retires) return 'active';
  return Date.parse(`${m.retires}T00:00:00Z`) <= now ? 'retired' : 'retiring';
}

export function isRetired(m: Pick<CatalogueModel, 'retires'>, now: number): boolean {
  return modelStatus(m, now) === 'retired';
}
