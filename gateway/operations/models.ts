/**
 * The model square and the user's catalogue entries: list with search and filters, add, change
 * and remove custom models, override a preset model's prices and reset them. Entries live in
 * config.json (`models`, `priceOverrides`); preset files are never edited. The catalogue follows
 * every config change (catalogue/live.ts), so the next request is billed at what is set here.
 */
import type { CatalogueModel } from '../catalogue/catalogue.js';
import { modelStatus } from '../catalogue/lifecycle.js';
import { customProblem, tiersProblem } from '../catalogue/user-models.js';
import { FORMATS, type FormatId } from '../contract/formats.js';
import { PRICE_KEYS, REQUIRED_PRICES, type PriceKey } from '../contract/prices.js';
import type { Gateway } from '../compose/gateway.js';
import type { ConfigData, CustomModelRecord, LineRecord, PriceRecord } from '../store/types.js';
import {
  type AddModelBody,
  AdminError,
  type ModelListView,
  type ModelsQuery,
  type ModelView,
  type RemoveModelQuery,
  type UpdateModelBody,
} from '../contract/admin/index.js';

export const DEFAULT_CONTEXT_WINDOW = 128_000;

function access(protocols: readonly FormatId[]): ModelView['access'] {
  const out = {} as ModelView['access'];
  for (const inbound of FORMATS) {
    out[inbound] = protocols.length === 0 ? 'unavailable' : protocols.includes(inbound) ? 'native' : 'translated';
  }
  return out;
}

/**
 * What the views of many models read of the config, indexed once: which lines serve an id, which
 * groups grant it, and the custom records by id. A view built without it scans the lines' and
 * groups' lists, which is fine for one model but quadratic for a list of thousands (an imported
 * upstream list); `GET /api/models` builds the index, so it stays linear in the models and lines.
 */
export interface ViewIndex {
  lines: ReadonlyMap<string, readonly LineRecord[]>;
  /** The groups that grant every model ('*'), and the rest by the ids they grant. */
  allGroups: readonly string[];
  groups: ReadonlyMap<string, readonly string[]>;
  custom: ReadonlyMap<string, CustomModelRecord>;
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function viewIndex(d: ConfigData): ViewIndex {
  const lines = new Map<string, LineRecord[]>();
  for (const l of d.lines) for (const id of new Set(l.models)) push(lines, id, l);
  const allGroups: string[] = [];
  const groups = new Map<string, string[]>();
  for (const x of d.groups) {
    if (x.models.includes('*')) allGroups.push(x.name);
    else for (const id of new Set(x.models)) push(groups, id, x.name);
  }
  return { lines, allGroups, groups, custom: new Map((d.models ?? []).map((r) => [r.id, r])) };
}

export function modelView(g: Gateway, m: CatalogueModel, now = g.catalogue.now(), index?: ViewIndex): ModelView {
  const d = g.config.data;
  const lines = index ? (index.lines.get(m.id) ?? []) : d.lines.filter((l) => l.models.includes(m.id));
  const enabled = lines.filter((l) => l.enabled);
  const custom = m.origin === 'custom' ? (index ? index.custom.get(m.id) : customRecord(g, m.id)) : undefined;
  // Group order as in the config: those granting '*' and those naming the id, merged back in order.
  const groups = index
    ? orderedGroups(d, index, m.id)
    : d.groups.filter((x) => x.models.includes('*') || x.models.includes(m.id)).map((x) => x.name);
  return {
    id: m.id,
    vendor: m.vendor,
    displayName: m.displayName,
    contextWindow: m.contextWindow,
    maxOutputTokens: m.maxOutputTokens,
    nativeProtocols: m.nativeProtocols,
    prices: m.prices,
    origin: m.origin ?? 'preset',
    presetPrices: m.presetPrices ?? null,
    source: m.origin === 'custom' ? (custom?.source ?? null) : null,
    status: modelStatus(m, now),
    retires: m.retires ?? null,
    replacement: m.replacement ?? null,
    ...(m.tiers ? { tiers: m.tiers } : {}),
    ...(m.quirks ? { quirks: m.quirks } : {}),
    lines: lines.map((l) => l.name),
    served: enabled.length > 0,
    groups,
    access: access(enabled.map((l) => l.protocol)),
  };
}

function orderedGroups(d: ConfigData, index: ViewIndex, id: string): string[] {
  const named = index.groups.get(id);
  if (!named) return [...index.allGroups];
  if (index.allGroups.length === 0) return [...named];
  const wanted = new Set([...index.allGroups, ...named]);
  return d.groups.filter((x) => wanted.has(x.name)).map((x) => x.name);
}

function matches(v: ModelView, q: ModelsQuery): boolean {
  if (q.q) {
    const text = `${v.id} ${v.displayName} ${v.vendor}`.toLowerCase();
    if (
      !q.q
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean)
        .every((w) => text.includes(w))
    )
      return false;
  }
  if (q.vendor !== undefined && v.vendor !== q.vendor) return false;
  if (q.protocol !== undefined && v.access[q.protocol] !== 'native' && !v.nativeProtocols.includes(q.protocol))
    return false;
  if (q.served !== undefined && v.served !== q.served) return false;
  if (q.group !== undefined && !v.groups.includes(q.group)) return false;
  if (q.status !== undefined && v.status !== q.status) return false;
  if (q.origin !== undefined && v.origin !== q.origin) return false;
  return true;
}

export function listModels(g: Gateway, q: ModelsQuery = {}): ModelListView {
  if (q.group !== undefined && !g.config.data.groups.some((x) => x.name === q.group)) {
    throw new AdminError(
      404,
      'unknown_group',
      `There is no group "${q.group}". Groups: ${g.config.data.groups.map((x) => x.name).join(', ')}.`,
    );
  }
  const now = g.catalogue.now();
  const index = viewIndex(g.config.data);
  const models = [...g.catalogue.values()].map((m) => modelView(g, m, now, index)).filter((v) => matches(v, q));
  // Shut-down ids are no catalogue model: no line serves them, no group grants them, no origin but a preset.
  const retiredFits =
    q.served !== true &&
    q.group === undefined &&
    q.protocol === undefined &&
    (q.status ?? 'retired') === 'retired' &&
    (q.origin ?? 'preset') === 'preset';
  const retired = retiredFits
    ? [...g.catalogue.retired.values()]
        .filter(
          (r) =>
            (q.vendor === undefined || r.vendor === q.vendor) &&
            (!q.q ||
              q.q
                .toLowerCase()
                .split(/\s+/)
                .every((w) => `${r.id} ${r.vendor}`.toLowerCase().includes(w))),
        )
        .map((r) => ({ id: r.id, vendor: r.vendor, retired: r.retired, replacement: r.replacement }))
    : [];
  return { models, retired };
}

export function findModel(g: Gateway, id: string): CatalogueModel {
  const m = g.catalogue.get(id);
  if (m) return m;
  const gone = g.catalogue.retired.get(id);
  if (gone)
    throw new AdminError(
      404,
      'unknown_model',
      `"${id}" was retired by its vendor${gone.retired ? ` on ${gone.retired}` : ''} and is not in the catalogue; use ${gone.replacement}.`,
    );
  throw new AdminError(
    404,
    'unknown_model',
    `There is no model "${id}" in the catalogue. "tollgate models list" shows the ids.`,
  );
}

function customRecord(g: Gateway, id: string): CustomModelRecord | undefined {
  return (g.config.data.models ?? []).find((r) => r.id === id);
}

/** Prices for a new model: input and output given; cacheRead and cacheWrite default to input (no discount known: billed in full). */
export function newPrices(prices: Partial<Record<PriceKey, number>>, what: string): PriceRecord {
  if (prices.input === undefined || prices.output === undefined) {
    throw new AdminError(400, 'bad_prices', `${what} needs an input and an output price (0 for a free model).`);
  }
  const out: PriceRecord = { cacheRead: prices.input, cacheWrite: prices.input };
  for (const k of PRICE_KEYS) if (prices[k] !== undefined) out[k] = prices[k];
  return out;
}

/**
 * The most custom models the catalogue holds. Every config write and every model list grows with
 * them (docs/reliability.md has the figures at this size); a hostile or mistaken upstream list must
 * not make the config a file of millions of entries. Far beyond any real provider's list.
 */
export const MAX_CUSTOM_MODELS = 20_000;

/** Refuses adding `n` custom models when the catalogue would hold more than MAX_CUSTOM_MODELS. */
export function roomForModels(g: Gateway, n: number): void {
  const have = g.config.data.models?.length ?? 0;
  if (n > 0 && have + n > MAX_CUSTOM_MODELS)
    throw new AdminError(
      400,
      'too_many_models',
      `The catalogue holds ${have.toLocaleString('en-US')} custom models; adding ${n.toLocaleString('en-US')} would pass the ${MAX_CUSTOM_MODELS.toLocaleString('en-US')} it keeps. ` +
        'Nothing was added. Remove models you do not use ("tollgate models remove ID"), or add fewer (an import takes "only").',
    );
}

/** A custom model record from the fields given, with the defaults filled in and checked. */
export function newCustomRecord(
  g: Gateway,
  fields: Omit<AddModelBody, 'prices'> & { prices: PriceRecord; source: string },
): CustomModelRecord {
  const contextWindow = fields.contextWindow ?? Math.max(DEFAULT_CONTEXT_WINDOW, fields.maxOutputTokens ?? 0);
  const now = new Date().toISOString();
  const record: CustomModelRecord = {
    id: fields.id,
    vendor: fields.vendor ?? 'custom',
    displayName: fields.displayName ?? fields.id,
    contextWindow,
    maxOutputTokens: fields.maxOutputTokens ?? contextWindow,
    nativeProtocols: fields.nativeProtocols ?? ['openai-chat'],
    prices: fields.prices,
    ...(fields.retires ? { retires: fields.retires } : {}),
    ...(fields.replacement ? { replacement: fields.replacement } : {}),
    ...(fields.tiers && fields.tiers.length > 0 ? { tiers: fields.tiers } : {}),
    ...(fields.quirks && Object.keys(fields.quirks).length > 0 ? { quirks: fields.quirks } : {}),
    source: fields.source,
    createdAt: now,
    updatedAt: now,
  };
  checkRecord(g, record);
  return record;
}

function checkRecord(g: Gateway, r: CustomModelRecord): void {
  const problem = customProblem(r);
  if (problem) throw new AdminError(400, 'bad_model', `The model "${r.id}": ${problem}.`);
  if (r.replacement && (r.replacement === r.id || !g.catalogue.has(r.replacement))) {
    throw new AdminError(
      400,
      'unknown_model',
      `The replacement "${r.replacement}" is not another model of the catalogue.`,
    );
  }
}

export async function addModel(g: Gateway, body: AddModelBody): Promise<ModelView> {
  if (g.catalogue.has(body.id)) {
    const preset = g.catalogue.get(body.id)!.origin !== 'custom';
    throw new AdminError(
      409,
      'model_exists',
      `"${body.id}" is already in the catalogue${preset ? ' (a preset model: change its prices with update)' : ''}.`,
    );
  }
  const record = newCustomRecord(g, {
    ...body,
    prices: newPrices(body.prices, `The model "${body.id}"`),
    source: 'user',
  });
  roomForModels(g, 1);
  await g.config.update((d) => {
    (d.models ??= []).push(record);
  });
  return modelView(g, g.catalogue.get(body.id)!);
}

/** Applies price changes to a record of prices: a number sets a kind, null takes it away. */
function changedPrices(base: PriceRecord, changes: NonNullable<UpdateModelBody['prices']>): PriceRecord {
  const out = { ...base };
  for (const k of PRICE_KEYS) {
    const v = changes[k];
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out;
}

export async function updateModel(g: Gateway, id: string, body: UpdateModelBody): Promise<ModelView> {
  const m = findModel(g, id);
  const record = customRecord(g, id);
  if (m.origin === 'custom' && record) {
    const prices = body.prices ? changedPrices(record.prices, body.prices) : record.prices;
    const missing = REQUIRED_PRICES.filter((k) => prices[k] === undefined);
    if (missing.length > 0)
      throw new AdminError(
        400,
        'bad_prices',
        `Every model keeps an ${missing.join(', ')} price; set it to 0 for free.`,
      );
    const { prices: _, ...fields } = body;
    const next: CustomModelRecord = { ...record, ...definedOnly(fields), prices, updatedAt: new Date().toISOString() };
    if (body.retires === null) delete next.retires;
    if (body.replacement === null) delete next.replacement;
    if (body.tiers?.length === 0) delete next.tiers;
    if (body.quirks && Object.keys(body.quirks).length === 0) delete next.quirks;
    checkRecord(g, next);
    await g.config.update((d) => {
      d.models = (d.models ?? []).map((r) => (r === record ? next : r));
    });
    return modelView(g, g.catalogue.get(id)!);
  }
  const fixed = Object.keys(body).filter((k) => k !== 'prices' && k !== 'tiers');
  if (fixed.length > 0) {
    throw new AdminError(
      400,
      'preset_model',
      `"${id}" is a preset model: only its prices and tiers can be changed (not ${fixed.join(', ')}). Add a model of your own for other figures.`,
    );
  }
  const next = overridden(g, id, body.prices ?? {});
  if (body.tiers) {
    const problem = tiersProblem(body.tiers);
    if (problem) throw new AdminError(400, 'bad_prices', `The tiers of "${id}": ${problem}.`);
  }
  await g.config.update((d) => setOverride(d, id, next, 'user', body.tiers));
  return modelView(g, g.catalogue.get(id)!);
}

/** A preset model's override after changes: kinds set back to the preset's own price are dropped. */
export function overridden(g: Gateway, id: string, changes: NonNullable<UpdateModelBody['prices']>): PriceRecord {
  const preset = g.catalogue.presets.get(id)!;
  const old = (g.config.data.priceOverrides ?? []).find((o) => o.id === id);
  const wanted = changedPrices(old?.prices ?? {}, changes);
  for (const k of PRICE_KEYS) if (wanted[k] !== undefined && wanted[k] === preset.prices[k]) delete wanted[k];
  return wanted;
}

/** Writes (or, when empty, removes) a preset model's override; call inside config.update. */
export function setOverride(
  d: ConfigData,
  id: string,
  prices: PriceRecord,
  source: string,
  tiers?: { above: number; prices: PriceRecord }[],
): void {
  const old = (d.priceOverrides ?? []).find((o) => o.id === id);
  const rest = (d.priceOverrides ?? []).filter((o) => o.id !== id);
  // Tiers given replace the override's; otherwise the override keeps the tiers it had.
  const keptTiers = tiers ?? old?.tiers;
  d.priceOverrides =
    Object.keys(prices).length === 0 && keptTiers === undefined
      ? rest
      : [
          ...rest,
          {
            id,
            prices,
            ...(keptTiers ? { tiers: keptTiers } : {}),
            source,
            updatedAt: new Date().toISOString(),
          },
        ];
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

/** Takes a preset model's prices back to the preset's own. */
export async function resetModel(g: Gateway, id: string): Promise<ModelView> {
  const m = findModel(g, id);
  if (m.origin === 'custom') {
    throw new AdminError(
      400,
      'custom_model',
      `"${id}" is a model of your own: it has no preset prices to go back to. Change its prices with update, or remove it.`,
    );
  }
  if ((g.config.data.priceOverrides ?? []).some((o) => o.id === id)) {
    await g.config.update((d) => {
      d.priceOverrides = (d.priceOverrides ?? []).filter((o) => o.id !== id);
    });
  }
  return modelView(g, g.catalogue.get(id)!);
}

/** What names a model besides the catalogue: lines, aliases, groups, and custom models that name it their replacement. */
function usesOf(g: Gateway, id: string): string[] {
  const d = g.config.data;
  return [
    ...d.lines.filter((l) => l.models.includes(id)).map((l) => `line ${l.name}`),
    ...d.aliases.filter((a) => a.model === id).map((a) => `alias ${a.pattern}`),
    ...d.groups.filter((x) => x.models.includes(id)).map((x) => `group ${x.name}`),
    ...(d.models ?? []).filter((r) => r.replacement === id).map((r) => `model ${r.id} (its replacement)`),
  ];
}

export async function removeModel(g: Gateway, id: string, q: RemoveModelQuery): Promise<ModelView> {
  const m = findModel(g, id);
  const record = customRecord(g, id);
  if (m.origin !== 'custom' || !record) {
    throw new AdminError(
      400,
      'preset_model',
      `"${id}" is a preset model and stays in the catalogue. "tollgate models reset ${id}" takes its prices back to the preset's; a group's model list can keep keys off it.`,
    );
  }
  const uses = usesOf(g, id);
  const d = g.config.data;
  if (uses.length > 0 && !q.force) {
    throw new AdminError(
      409,
      'model_in_use',
      `"${id}" is named by ${uses.join(', ')}. Take it off them first, or remove it with force (CLI: --force) to take it off them too.`,
    );
  }
  const emptied = d.lines.filter((l) => l.models.length === 1 && l.models[0] === id).map((l) => l.name);
  if (emptied.length > 0)
    throw new AdminError(
      409,
      'model_in_use',
      `"${id}" is the only model of the line${emptied.length > 1 ? 's' : ''} ${emptied.join(', ')}; remove ${emptied.length > 1 ? 'them' : 'it'} first.`,
    );
  const emptiedGroups = d.groups.filter((x) => x.models.length === 1 && x.models[0] === id).map((x) => x.name);
  if (emptiedGroups.length > 0)
    throw new AdminError(
      409,
      'model_in_use',
      `"${id}" is the only model of the group ${emptiedGroups.join(', ')}; give the group other models first.`,
    );
  const view = modelView(g, m);
  await g.config.update((data) => {
    data.models = (data.models ?? []).filter((r) => r !== record);
    for (const l of data.lines) {
      if (!l.models.includes(id)) continue;
      l.models = l.models.filter((x) => x !== id);
      const { [id]: _, ...map } = l.modelMap;
      l.modelMap = map;
    }
    data.aliases = data.aliases.filter((a) => a.model !== id);
    for (const x of data.groups) x.models = x.models.filter((mid) => mid !== id);
    for (const r of data.models) if (r.replacement === id) delete r.replacement;
  });
  return view;
}
