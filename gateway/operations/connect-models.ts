import type { CatalogueModel } from '../catalogue/catalogue.js';
import { isRetired } from '../catalogue/lifecycle.js';
import type { Gateway } from '../compose/gateway.js';
import { AdminError } from '../contract/admin/index.js';

/**
 * Which models connect may point a tool at: catalogue models that an enabled line serves and
 * that the key's group may use and that are not retired, in catalogue order (each preset lists its
 * models newest first).
 */
export function servedModels(g: Gateway, group: string): CatalogueModel[] {
  const allowed = g.config.data.groups.find((x) => x.name === group)?.models ?? [];
  const served = new Set(g.config.data.lines.filter((l) => l.enabled).flatMap((l) => l.models));
  const now = g.catalogue.now();
  return [...g.catalogue.values()].filter(
    (m) => served.has(m.id) && (allowed.includes('*') || allowed.includes(m.id)) && !isRetired(m, now),
  );
}

export interface ModelChoice {
  /** Who will use the models, for messages: "Claude Code". */
  who: string;
  /** The preset whose models the tool is made for, preferred for the default; none for SDKs. */
  vendor?: string;
  /** Whether the tool has a small/fast model setting. */
  smallModelSetting: boolean;
  /** The key's group, which limits the models. */
  group: string;
  model?: string | undefined;
  smallModel?: string | undefined;
}

/**
 * The models a tool is connected with: the ones asked for, each checked to be served, or else
 * the default. The main model defaults to the first served model of the tool's own vendor (the
 * newest, as the presets list them), or the first served model of any vendor; the small/fast
 * model to the cheapest served model of the main model's vendor (output price, then input).
 */
export function chooseModels(g: Gateway, c: ModelChoice): { model: string; smallModel: string | null } {
  const served = servedModels(g, c.group);
  if (c.smallModel !== undefined && !c.smallModelSetting) {
    throw new AdminError(400, 'no_small_model', `${c.who} has no small/fast model setting; leave out the small model.`);
  }
  if (served.length === 0) {
    const none = g.config.data.lines.some((l) => l.enabled)
      ? `no model your lines serve is open to the group "${c.group}"`
      : 'no line serves a model yet';
    throw new AdminError(
      409,
      'no_served_models',
      `There is no model to point ${c.who} at: ${none}. Add a line first (tollgate lines add --preset …).`,
    );
  }
  const own = served.filter((m) => m.vendor === c.vendor);
  const model = c.model === undefined ? (own[0] ?? served[0]!).id : checkServed(g, c.model, served, c);
  if (!c.smallModelSetting) return { model, smallModel: null };
  if (c.smallModel !== undefined) return { model, smallModel: checkServed(g, c.smallModel, served, c) };
  const vendor = g.catalogue.get(model)!.vendor;
  const cheapest = served
    .filter((m) => m.vendor === vendor)
    .sort((a, b) => a.prices.output - b.prices.output || a.prices.input - b.prices.input)[0];
  return { model, smallModel: cheapest?.id ?? model };
}

function checkServed(g: Gateway, id: string, served: readonly CatalogueModel[], c: ModelChoice): string {
  const some = listSome(served.map((m) => m.id));
  if (!g.catalogue.has(id))
    throw new AdminError(400, 'unknown_model', `"${id}" is not a catalogue model. Models your lines serve: ${some}.`);
  if (served.some((m) => m.id === id)) return id;
  const anyLine = g.config.data.lines.some((l) => l.enabled && l.models.includes(id));
  if (anyLine) {
    throw new AdminError(
      400,
      'model_not_allowed',
      `The key's group "${c.group}" may not use ${id}, so ${c.who} could not either. Models it may use that your lines serve: ${some}.`,
    );
  }
  throw new AdminError(
    400,
    'model_not_served',
    `No line serves ${id}, so ${c.who} would get errors with it. Models your lines serve: ${some}.`,
  );
}

/** The first few ids, and how many more there are ("tollgate models list" shows them all). */
function listSome(ids: readonly string[], max = 8): string {
  return ids.length <= max
    ? ids.join(', ')
    : `${ids.slice(0, max).join(', ')} and ${ids.length - max} more (tollgate models list shows them)`;
}
