/** Aliases: a requested model id (or pattern) answered by a catalogue model. */
import { isRetired } from '../catalogue/lifecycle.js';
import type { Gateway } from '../compose/gateway.js';
import { AdminError, type AliasView, type CreateAliasBody } from '../contract/admin/index.js';
import { checkModels, checkNotRetired } from './model-checks.js';

export function listAliases(g: Gateway): AliasView[] {
  return g.config.data.aliases.map((a) => ({ ...a }));
}

export async function addAlias(g: Gateway, body: CreateAliasBody): Promise<AliasView> {
  checkModels(g, [body.model]);
  checkNotRetired(g, [body.model]);
  const shadowed = g.catalogue.get(body.pattern);
  // A retired model's id is what an alias is for: its requests go to the alias's model instead.
  if (shadowed && !isRetired(shadowed, g.catalogue.now())) {
    throw new AdminError(
      400,
      'alias_shadows_model',
      `"${body.pattern}" is a catalogue model id; an alias for it would never apply.`,
    );
  }
  const alias = { pattern: body.pattern, model: body.model };
  await g.config.update((d) => {
    d.aliases = [...d.aliases.filter((a) => a.pattern !== body.pattern), alias];
  });
  return alias;
}

export async function removeAlias(g: Gateway, pattern: string): Promise<AliasView> {
  const found = g.config.data.aliases.find((a) => a.pattern === pattern);
  if (!found) throw new AdminError(404, 'unknown_alias', `There is no alias "${pattern}".`);
  await g.config.update((d) => {
    d.aliases = d.aliases.filter((a) => a !== found);
  });
  return found;
}
