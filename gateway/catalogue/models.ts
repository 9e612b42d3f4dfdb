import { GatewayError } from '../core/errors.js';
import { echo } from '../core/input.js';
import { parseMultiplier } from '../core/money.js';
import { DEFAULT_GROUP, type ConfigStore } from '../store/config.js';
import type { GroupRecord, KeyRecord } from '../store/types.js';
import { resolveAlias } from './aliases.js';
import type { CatalogueModel, RetiredModel } from './catalogue.js';
import { isRetired } from './lifecycle.js';

/** The catalogue model a request is served by, and the price multiplier of the key's group. */
export interface ResolvedModel {
  model: CatalogueModel;
  multiplierPpm: number;
}

/**
 * Which catalogue models a key may use: the catalogue (built from the presets at start-up), the
 * key's group, and the aliases that steer other ids to catalogue models, as the config says now.
 */
export class Models {
  private readonly retired: ReadonlyMap<string, RetiredModel>;
  private readonly now: () => number;

  constructor(
    readonly catalogue: ReadonlyMap<string, CatalogueModel>,
    private readonly config: Pick<ConfigStore, 'data'>,
    /** `retired`: ids the presets list as shut down; `now`: the clock retirement dates are read against. */
    opts: { retired?: ReadonlyMap<string, RetiredModel>; now?: () => number } = {},
  ) {
    this.retired = opts.retired ?? new Map();
    this.now = opts.now ?? Date.now;
  }

  /** The key's group; a key whose group was removed falls back to the default group. */
  group(name: string): GroupRecord {
    const groups = this.config.data.groups;
    const g = groups.find((x) => x.name === name) ?? groups.find((x) => x.name === DEFAULT_GROUP);
    if (!g) throw new GatewayError('internal', `group "${name}" does not exist`);
    return g;
  }

  /** Catalogue models the key's group may use, in catalogue order; retired ones are not offered. */
  forKey(key: KeyRecord): CatalogueModel[] {
    const g = this.group(key.group);
    const all = g.models.includes('*');
    const now = this.now();
    return [...this.catalogue.values()].filter((m) => (all || g.models.includes(m.id)) && !isRetired(m, now));
  }

  /**
   * The catalogue model a requested id stands for: the exact id, else the first alias that matches.
   * A retired id is caught by an alias if one matches it, else refused with what to use instead.
   */
  resolve(id: string, key: KeyRecord): ResolvedModel {
    const now = this.now();
    const exact = this.catalogue.get(id);
    const target = exact && !isRetired(exact, now) ? id : resolveAlias(id, this.config.data.aliases);
    const model = target === undefined ? undefined : this.catalogue.get(target);
    if (model && isRetired(model, now))
      throw this.retiredError(model.id, model.retires ?? null, model.replacement ?? null, id);
    if (!model && exact) throw this.retiredError(id, exact.retires ?? null, exact.replacement ?? null, id);
    const gone = model ? undefined : this.retired.get(id);
    if (gone) throw this.retiredError(id, gone.retired, gone.replacement, id);
    if (!model) {
      throw new GatewayError(
        'model_not_found',
        `The model "${echo(id)}" does not exist. Model ids must match the catalogue exactly: GET /v1/models with your key lists the ids you may use, as do the console's model list and "tollgate models list".`,
        { code: 'model_not_found', param: 'model' },
      );
    }
    const g = this.group(key.group);
    if (!g.models.includes('*') && !g.models.includes(model.id)) {
      throw new GatewayError(
        'model_not_found',
        `The model "${echo(id)}" is not available to this key's group "${g.name}". GET /v1/models with your key lists the ids it may use.`,
        { code: 'model_not_found', param: 'model' },
      );
    }
    return { model, multiplierPpm: parseMultiplier(g.multiplier) };
  }

  /** A 404 in the client's shape (code model_retired) that says when the model went and what to use now. */
  private retiredError(id: string, on: string | null, replacement: string | null, requested: string): GatewayError {
    const via = requested === id ? '' : ` (the alias for "${requested}" points at it)`;
    const use = replacement
      ? ` Use "${replacement}" instead, or steer requests for it there with "tollgate aliases add ${id} ${replacement}".`
      : ' Pick a current model from GET /v1/models.';
    return new GatewayError(
      'model_not_found',
      `The model "${id}"${via} was retired${on ? ` on ${on}` : ''}: its vendor no longer serves it.${use}`,
      {
        code: 'model_retired',
        param: 'model',
      },
    );
  }
}
