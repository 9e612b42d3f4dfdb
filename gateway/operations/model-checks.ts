/**
 * What a model id must be for a line, an alias or a group to name it: a catalogue model, and one
 * its vendor still serves.
 */
import { modelStatus } from '../catalogue/lifecycle.js';
import type { Gateway } from '../compose/gateway.js';
import { AdminError } from '../contract/admin/index.js';

export function checkModels(g: Gateway, ids: readonly string[]): void {
  const unknown = ids.filter((id) => !g.catalogue.has(id));
  if (unknown.length > 0) {
    throw new AdminError(
      400,
      'unknown_model',
      `Not in the catalogue: ${unknown.join(', ')}. The model list (tollgate models list) shows the catalogue ids.`,
    );
  }
}

/** Refuses ids a line cannot serve any more: retired ones, naming what to use instead. */
export function checkNotRetired(g: Gateway, ids: readonly string[]): void {
  const now = g.catalogue.now();
  for (const id of ids) {
    const m = g.catalogue.get(id);
    const listed = g.catalogue.retired.get(id);
    let gone: { on: string | null; use: string | null } | null = null;
    if (m && modelStatus(m, now) === 'retired') gone = { on: m.retires ?? null, use: m.replacement ?? null };
    else if (!m && listed) gone = { on: listed.retired, use: listed.replacement };
    if (gone) {
      throw new AdminError(
        400,
        'model_retired',
        `"${id}" was retired${gone.on ? ` on ${gone.on}` : ''}: its vendor no longer serves it.${gone.use ? ` Use ${gone.use} instead.` : ''}`,
      );
    }
  }
}
