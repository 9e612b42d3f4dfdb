/**
 * Lines and models the catalogue does not have yet. A line may name ids the catalogue lacks when
 * the request says how to price them (`addModels`: prices, or free); a line of a local preset
 * (Ollama, LM Studio) adds them at price 0 unless told otherwise. `importLineModels` adds every id
 * the line's upstream lists, priced by the list where it carries prices (OpenRouter's does).
 */
import { modelStatus } from '../catalogue/lifecycle.js';
import { MODEL_ID } from '../catalogue/presets.js';
import { asPrices } from '../catalogue/user-models.js';
import type { Gateway } from '../compose/gateway.js';
import type { ListedModel } from '../core/format.js';
import { perTokenToMicroPerMillion } from '../core/money.js';
import type { CustomModelRecord, LineRecord, PriceRecord } from '../store/types.js';
import {
  type AddedModelView,
  type AddModelsBody,
  AdminError,
  type ImportLineModelsBody,
  type LineImportView,
} from '../contract/admin/index.js';
import { listedModels } from './line-upstream.js';
import { findLine, lineView } from './lines.js';
import { newCustomRecord, newPrices, roomForModels } from './models.js';

function freePrices(): PriceRecord {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

/** A list's per-token prices in micro-USD per million; null unless it gives input and output. */
function listedPrices(m: ListedModel): PriceRecord | null {
  const p = m.perToken;
  if (p?.input === undefined || p.output === undefined) return null;
  const micro = (text: string): number => perTokenToMicroPerMillion(text).micro;
  const input = micro(p.input);
  return {
    input,
    output: micro(p.output),
    cacheRead: p.cacheRead === undefined ? input : micro(p.cacheRead),
    cacheWrite: p.cacheWrite === undefined ? input : micro(p.cacheWrite),
  };
}

export interface NewModels {
  records: CustomModelRecord[];
  added: AddedModelView[];
}

/** How the new models of a line are priced and described: what the request said, and what the upstream lists. */
interface Pricing {
  line: Pick<LineRecord, 'name' | 'protocol'>;
  vendor: string;
  addModels: AddModelsBody | undefined;
  /** The upstream's own list entries, by id, where the line was made from one. */
  listed?: ReadonlyMap<string, ListedModel>;
}

function record(g: Gateway, id: string, prices: PriceRecord, how: Pricing, source: string): CustomModelRecord {
  const l = how.listed?.get(id);
  const contextWindow = how.addModels?.contextWindow ?? l?.contextWindow;
  const maxOut = how.addModels?.maxOutputTokens ?? l?.maxOutputTokens;
  return newCustomRecord(g, {
    id,
    vendor: how.addModels?.vendor ?? how.vendor,
    ...(l?.displayName ? { displayName: l.displayName } : {}),
    ...(contextWindow ? { contextWindow: Math.max(contextWindow, maxOut ?? 0) } : {}),
    ...(maxOut ? { maxOutputTokens: maxOut } : {}),
    nativeProtocols: [how.line.protocol],
    prices,
    source,
  });
}

/**
 * Catalogue entries for the ids of a line the catalogue lacks, priced as `addModels` says; without
 * it, a 400 that names them and the ways to add them.
 */
export function newLineModels(g: Gateway, ids: readonly string[], how: Pricing): NewModels {
  const unknown = [...new Set(ids)].filter((id) => !g.catalogue.has(id) && !g.catalogue.retired.has(id));
  if (unknown.length === 0) return { records: [], added: [] };
  const a = how.addModels;
  if (!a || (!a.free && !a.prices)) {
    throw new AdminError(
      400,
      'unknown_model',
      `Not in the catalogue: ${unknown.join(', ')}. Add ${unknown.length > 1 ? 'them' : 'it'} with the line: addModels with prices, or free: true ` +
        `(CLI: --add-models --input USD --output USD per million tokens, or --free); or first "tollgate models add ID --input USD --output USD".`,
    );
  }
  if (a.free && a.prices) throw new AdminError(400, 'bad_prices', 'Give the new models prices or free, not both.');
  const bad = unknown.filter((id) => !MODEL_ID.test(id) || id.length > 200);
  if (bad.length > 0)
    throw new AdminError(
      400,
      'bad_model',
      `Not a catalogue id (letters, digits and . _ : / @ + -, at most 200): ${bad.join(', ')}.`,
    );
  roomForModels(g, unknown.length);
  const prices = a.free ? freePrices() : newPrices(a.prices!, 'A model added with a line');
  const records = unknown.map((id) => record(g, id, prices, how, `line:${how.line.name}`));
  return {
    records,
    added: records.map((r) => ({ id: r.id, prices: asPrices(r.prices), priced: a.free ? 'free' : 'given' })),
  };
}

/**
 * The catalogue id a listed upstream id stands for on this line: its model map, its preset's
 * references, or the id itself. Built once per import (a list may hold thousands of ids).
 */
function catalogueIds(g: Gateway, line: LineRecord): (upstreamId: string) => string | undefined {
  const mapped = new Map<string, string>();
  for (const [id, u] of Object.entries(line.modelMap)) if (!mapped.has(u)) mapped.set(u, id);
  const refs = new Map<string, string>();
  const preset = line.preset ? g.presets.get(line.preset) : undefined;
  for (const m of preset?.models ?? [])
    if (m.upstreamId !== undefined && m.upstreamId !== m.id && !refs.has(m.upstreamId)) refs.set(m.upstreamId, m.id);
  return (upstreamId) => {
    const byMap = mapped.get(upstreamId);
    if (byMap) return byMap;
    const ref = refs.get(upstreamId);
    if (ref !== undefined && g.catalogue.has(ref)) return ref;
    return g.catalogue.has(upstreamId) ? upstreamId : undefined;
  };
}

export function isLocalLine(g: Gateway, line: Pick<LineRecord, 'preset'>): boolean {
  return line.preset !== undefined && g.presets.get(line.preset)?.local === true;
}

/**
 * Every id the line's upstream lists, served by the line: ids the catalogue has are added to the
 * line; new ids become custom models, priced by the list where it gives input and output prices,
 * else by `prices`, else at 0 when `free` (the default for a local server), else skipped.
 */
export async function importLineModels(g: Gateway, name: string, body: ImportLineModelsBody): Promise<LineImportView> {
  const line = findLine(g, name);
  if (body.free && body.prices) throw new AdminError(400, 'bad_prices', 'Give prices or free, not both.');
  const given = body.prices ? newPrices(body.prices, 'An imported model') : null;
  const free = body.free ?? isLocalLine(g, line);
  const listed = await listedModels(g, line);
  const listedIds = new Set(listed.map((m) => m.id));
  const only = body.only ? new Set(body.only) : undefined;
  const wanted = only ? listed.filter((m) => only.has(m.id)) : listed;
  const skipped = (body.only ?? [])
    .filter((id) => !listedIds.has(id))
    .map((id) => ({ id, reason: "not in the upstream's list" }));
  const catalogueIdFor = catalogueIds(g, line);
  const onLine = new Set(line.models);
  const served: string[] = [];
  const serving = new Set<string>();
  const map: Record<string, string> = {};
  const records: CustomModelRecord[] = [];
  const added: AddedModelView[] = [];
  const how: Pricing = {
    line,
    vendor: line.preset ?? line.name,
    addModels: undefined,
    listed: new Map(listed.map((m) => [m.id, m])),
  };
  const now = g.catalogue.now();
  for (const m of wanted) {
    const known = catalogueIdFor(m.id);
    if (known) {
      if (modelStatus(g.catalogue.get(known)!, now) === 'retired')
        skipped.push({ id: m.id, reason: `${known} is retired` });
      else if (!onLine.has(known) && !serving.has(known)) {
        served.push(known);
        serving.add(known);
        if (known !== m.id) map[known] = m.id;
      }
      continue;
    }
    if (g.catalogue.retired.has(m.id)) {
      skipped.push({ id: m.id, reason: `retired; use ${g.catalogue.retired.get(m.id)!.replacement}` });
      continue;
    }
    if (!MODEL_ID.test(m.id) || m.id.length > 200) {
      skipped.push({
        id: m.id,
        reason: 'the id holds characters a catalogue id cannot (letters, digits and . _ : / @ + -)',
      });
      continue;
    }
    let prices: PriceRecord | null;
    try {
      prices = listedPrices(m);
    } catch {
      prices = null;
    }
    const priced = prices ? 'listed' : given ? 'given' : free ? 'free' : null;
    if (!priced) {
      skipped.push({ id: m.id, reason: 'the list gives no price: import it with free or with prices' });
      continue;
    }
    const r = record(g, m.id, prices ?? given ?? freePrices(), how, `upstream:${line.name}`);
    records.push(r);
    added.push({ id: r.id, prices: asPrices(r.prices), priced });
    served.push(r.id);
    serving.add(r.id);
  }
  roomForModels(g, records.length);
  if (!body.dryRun && served.length > 0) {
    await g.config.update((d) => {
      (d.models ??= []).push(...records);
      line.models = [...line.models, ...served];
      line.modelMap = { ...line.modelMap, ...map };
    });
  }
  return { line: lineView(g, line), added, served, skipped, dryRun: body.dryRun === true };
}
