import { GatewayError } from '../core/errors.js';
import { parseMultiplier } from '../core/money.js';
import { DEFAULT_GROUP, type ConfigStore } from '../store/config.js';
import type { GroupRecord, KeyRecord } from '../store/types.js';
import { resolveAlias } from './aliases.js';
import type { CatalogueModel } from './catalogue.js';

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
  constructor(
    readonly catalogue: ReadonlyMap<string, CatalogueModel>,
    private readonly config: Pick<ConfigStore, 'data'>,
  ) {}

  /** The key's group; a key whose group was removed falls back to the default group. */
  group(name: string): GroupRecord {
    const groups = this.config.data.groups;
    const g = groups.find((x) => x.name === name) ?? groups.find((x) => x.name === DEFAULT_GROUP);
    if (!g) throw new GatewayError('internal', `group "${name}" does not exist`);
    return g;
  }

  /** Catalogue models the key's group may use, in catalogue order. */
  forKey(key: KeyRecord): CatalogueModel[] {
    const g = this.group(key.group);
    const all = g.models.includes('*');
    return [...this.catalogue.values()].filter((m) => all || g.models.includes(m.id));
  }

  /** The catalogue model a requested id stands for: the exact id, else the first alias that matches. */
  resolve(id: string, key: KeyRecord): ResolvedModel {
    const target = this.catalogue.has(id) ? id : resolveAlias(id, this.config.data.aliases);
    const model = target === undefined ? undefined : this.catalogue.get(target);
    if (!model) {
      throw new GatewayError(
        'model_not_found',
        `The model "${id}" does not exist. Model ids must match the catalogue exactly: GET /v1/models with your key lists the ids you may use, as do the console's model list and "tollgate models list".`,
        { code: 'model_not_found', param: 'model' },
      );
    }
    const g = this.group(key.group);
    if (!g.models.includes('*') && !g.models.includes(model.id)) {
      throw new GatewayError(
        'model_not_found',
        `The model "${id}" is not available to this key's group "${g.name}". GET /v1/models with your key lists the ids it may use.`,
        { code: 'model_not_found', param: 'model' },
      );
    }
    return { model, multiplierPpm: parseMultiplier(g.multiplier) };
  }
}
