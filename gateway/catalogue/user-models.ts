/**
 * The user's side of the catalogue: custom models and price overrides from config.json, laid over
 * the presets' catalogue. Preset files are never edited; a preset model whose prices the user
 * changed keeps the preset's prices beside them (`presetPrices`), so `reset` can bring them back.
 */
import { FORMATS } from '../contract/formats.js';
import { outputLimitProblem } from '../contract/model-fields.js';
import type { CustomModelRecord, PriceOverrideRecord, PriceRecord } from '../store/types.js';
import type { CatalogueModel } from './catalogue.js';
import { isDate, MODEL_ID, PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type Prices } from './presets.js';

export interface UserEntries {
  models?: readonly CustomModelRecord[] | undefined;
  priceOverrides?: readonly PriceOverrideRecord[] | undefined;
}

/** The catalogue with the user's entries applied, and what could not be applied (for `doctor`). */
export interface Composed {
  models: Map<string, CatalogueModel>;
  problems: string[];
}

/** Why a price record cannot be used, or null. `required`: the four kinds every model has must be there. */
export function pricesProblem(prices: unknown, required: boolean): string | null {
  if (typeof prices !== 'object' || prices === null || Array.isArray(prices)) return 'prices must be an object';
  for (const [k, v] of Object.entries(prices)) {
    if (!(PRICE_KEYS as readonly string[]).includes(k))
      return `unknown price kind "${k}" (kinds: ${PRICE_KEYS.join(', ')})`;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      return `prices.${k} must be a whole number of micro-USD per million tokens, 0 or more`;
  }
  if (required) {
    const missing = REQUIRED_PRICES.filter((k) => !(k in prices));
    if (missing.length > 0) return `prices lack ${missing.join(', ')}`;
  }
  return null;
}

/** Why a list of price tiers cannot be used, or null: each a threshold, thresholds rising, and prices by kind. */
export function tiersProblem(tiers: unknown): string | null {
  if (!Array.isArray(tiers)) return 'tiers must be a list';
  let last = 0;
  for (const [i, t] of tiers.entries()) {
    if (typeof t !== 'object' || t === null) return `tiers[${i}] must be an object`;
    const { above, prices } = t as { above?: unknown; prices?: unknown };
    if (typeof above !== 'number' || !Number.isSafeInteger(above) || above <= 0)
      return `tiers[${i}].above must be a positive whole number of tokens`;
    if (above <= last) return `tiers[${i}].above must be larger than the tier before it`;
    last = above;
    const problem = pricesProblem(prices, false);
    if (problem) return `tiers[${i}].${problem}`;
  }
  return null;
}

/** Why a custom model record cannot be a catalogue entry, or null. */
export function customProblem(r: CustomModelRecord): string | null {
  if (typeof r.id !== 'string' || !MODEL_ID.test(r.id) || r.id.length > 200)
    return 'its id may hold only letters, digits and . _ : / @ + - (at most 200)';
  if (typeof r.vendor !== 'string' || r.vendor.trim() === '') return 'it has no vendor';
  if (typeof r.displayName !== 'string' || r.displayName.trim() === '') return 'it has no display name';
  for (const k of ['contextWindow', 'maxOutputTokens'] as const) {
    if (!Number.isSafeInteger(r[k]) || r[k] <= 0) return `${k} must be a positive whole number of tokens`;
  }
  const limit = outputLimitProblem(r);
  if (limit) return limit;
  if (!Array.isArray(r.nativeProtocols) || !r.nativeProtocols.every((p) => (FORMATS as readonly string[]).includes(p)))
    return `nativeProtocols must list protocols of ${FORMATS.join(', ')}`;
  if (r.retires != null && !isDate(r.retires)) return `retires "${r.retires}" must be a date, YYYY-MM-DD`;
  if (r.tiers !== undefined) {
    const problem = tiersProblem(r.tiers);
    if (problem) return problem;
  }
  return pricesProblem(r.prices, true);
}

/** A checked price record as catalogue prices. */
export function asPrices(record: PriceRecord): Prices {
  const out: Partial<Record<PriceKey, number>> = {};
  for (const k of PRICE_KEYS) if (record[k] !== undefined) out[k] = record[k];
  return out as Prices;
}

/** The catalogue model a custom record stands for (the record checked first). */
export function customModel(r: CustomModelRecord): CatalogueModel {
  return {
    id: r.id,
    vendor: r.vendor,
    displayName: r.displayName,
    contextWindow: r.contextWindow,
    maxOutputTokens: r.maxOutputTokens,
    nativeProtocols: [...r.nativeProtocols],
    prices: asPrices(r.prices),
    origin: 'custom',
    retires: r.retires ?? null,
    replacement: r.replacement ?? null,
    ...(r.tiers && r.tiers.length > 0
      ? { tiers: r.tiers.map((t) => ({ above: t.above, prices: { ...t.prices } })) }
      : {}),
    ...(r.quirks && Object.keys(r.quirks).length > 0 ? { quirks: { ...r.quirks } } : {}),
  };
}

/** A preset model with the user's override laid over it: prices by kind, and the tiers when the override gives them. */
function overridden(m: CatalogueModel, o: PriceOverrideRecord): CatalogueModel {
  const out: CatalogueModel = { ...m, prices: { ...m.prices, ...asPrices(o.prices) }, presetPrices: m.prices };
  if (o.tiers === undefined) return out;
  if (o.tiers.length === 0) delete out.tiers;
  else out.tiers = o.tiers.map((t) => ({ above: t.above, prices: { ...t.prices } }));
  return out;
}

/**
 * Preset models (with the user's prices where overridden) in preset order, then custom models in
 * the order they were added. A custom model with a preset model's id replaces it: the user's entry
 * is what they asked for (a later Tollgate may ship an id they added first), and `doctor` says so.
 */
export function composeCatalogue(presets: ReadonlyMap<string, CatalogueModel>, user: UserEntries): Composed {
  const models = new Map<string, CatalogueModel>();
  const problems: string[] = [];
  const overrides = new Map((user.priceOverrides ?? []).map((o) => [o.id, o]));
  for (const [id, m] of presets) {
    const o = overrides.get(id);
    const problem = o ? (pricesProblem(o.prices, false) ?? (o.tiers ? tiersProblem(o.tiers) : null)) : null;
    if (o && problem) problems.push(`the price override of ${id} is ignored: ${problem}`);
    models.set(id, o && !problem ? overridden(m, o) : m);
  }
  for (const o of overrides.values()) {
    if (!presets.has(o.id)) problems.push(`the price override of ${o.id} is ignored: no preset model has that id`);
  }
  for (const r of user.models ?? []) {
    const problem = customProblem(r);
    if (problem) {
      problems.push(`the custom model ${String(r.id)} is ignored: ${problem}`);
      continue;
    }
    if (presets.has(r.id))
      problems.push(`the custom model ${r.id} replaces the preset model of that id (remove yours to use the preset's)`);
    models.set(r.id, customModel(r));
  }
  return { models, problems };
}
