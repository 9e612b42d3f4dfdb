import type { ConfigStore } from '../store/config.js';
import type { CatalogueModel, RetiredModel } from './catalogue.js';
import { composeCatalogue } from './user-models.js';

/**
 * The catalogue the gateway runs on: the presets' models with the user's custom models and price
 * overrides from config.json laid over them, rebuilt on every config change, so an added model or a
 * changed price applies to the next request. It reads like a Map of id → model. A request admitted
 * before a change keeps the model object (and prices) it was admitted with.
 */
export class LiveCatalogue implements ReadonlyMap<string, CatalogueModel> {
  private current = new Map<string, CatalogueModel>();
  /** What the user's entries hold that could not be applied, for `doctor`. */
  problems: string[] = [];

  constructor(
    /** The presets' catalogue, as shipped. */
    readonly presets: ReadonlyMap<string, CatalogueModel>,
    /** Ids the presets list as shut down. */
    readonly retired: ReadonlyMap<string, RetiredModel>,
    private readonly config: Pick<ConfigStore, 'data'> & Partial<Pick<ConfigStore, 'onChange'>>,
    /** The clock retirement dates are read against (catalogue/lifecycle.ts). */
    readonly now: () => number = Date.now,
  ) {
    this.rebuild();
    config.onChange?.(() => this.rebuild());
  }

  rebuild(): void {
    const { models, problems } = composeCatalogue(this.presets, this.config.data);
    this.current = models;
    this.problems = problems;
  }

  get size(): number {
    return this.current.size;
  }
  get(id: string): CatalogueModel | undefined {
    return this.current.get(id);
  }
  has(id: string): boolean {
    return this.current.has(id);
  }
  keys(): MapIterator<string> {
    return this.current.keys();
  }
  values(): MapIterator<CatalogueModel> {
    return this.current.values();
  }
  entries(): MapIterator<[string, CatalogueModel]> {
    return this.current.entries();
  }
  forEach(fn: (value: CatalogueModel, key: string, map: ReadonlyMap<string, CatalogueModel>) => void): void {
    for (const [k, v] of this.current) fn(v, k, this);
  }
  [Symbol.iterator](): MapIterator<[string, CatalogueModel]> {
    return this.current[Symbol.iterator]();
  }
}

/**
 * The clock of the catalogue: the real one, or a fixed day from `TOLLGATE_CATALOGUE_DATE`
 * (YYYY-MM-DD) — to see today what a shutdown date will do ("tollgate doctor" on that day), and for
 * test suites that must not change behaviour when a model they use reaches its date.
 */
export function catalogueClock(day: string | undefined): () => number {
  if (day === undefined || day === '') return Date.now;
  const t = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T12:00:00Z`) : Number.NaN;
  if (Number.isNaN(t)) throw new Error(`TOLLGATE_CATALOGUE_DATE must be a date, YYYY-MM-DD (it is "${day}")`);
  return () => t;
}
