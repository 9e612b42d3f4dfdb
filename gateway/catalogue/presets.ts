/**
 * Provider presets: one folder per vendor under gateway/presets/, holding a preset.json that says
 * how to reach the vendor (base URL, wire protocol, auth style, quirk flags) and which catalogue
 * models it serves. Adding an OpenAI-compatible vendor is a folder of data, not code. This file
 * reads and checks one folder at a time; catalogue.ts joins them.
 *
 * Every rule is enforced at load: each field by the schema of preset-schema.ts, the rules that join
 * fields here. A bad file stops start-up with a message naming the file and the field, instead of
 * mis-billing later. gateway/catalogue/README.md explains the rules.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { isLoopbackHost } from '../contract/loopback.js';
import { parseUsd } from '../contract/money.js';
import type { AuthStyle } from '../core/auth.js';
import { packageRoot } from '../core/paths.js';
import type { FormatId } from '../contract/formats.js';
import { MODEL_ID_PATTERN, outputLimitProblem, type ModelFields, type PriceTier } from '../contract/model-fields.js';
import type { Quirks } from '../core/quirks.js';
import { PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type Prices } from '../contract/prices.js';
import { DATE_PATTERN, PresetFile, presetFileProblem, type PresetDefinition } from './preset-schema.js';

export { PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type Prices };

/** What the owning preset says about a model (its fields but id and vendor: contract/model-fields.ts); becomes its catalogue entry. */
export type ModelDefinition = Omit<ModelFields, 'id' | 'vendor'>;

/** A model id the vendor has already shut down: not a catalogue model, but a request for it is told what to use. */
export interface RetiredModel {
  id: string;
  /** YYYY-MM-DD it was shut down, where known. */
  retired: string | null;
  /** The catalogue model to use instead. */
  replacement: string;
  /** The preset that noted it. */
  vendor: string;
}

export interface PresetModel {
  /** Catalogue id: what clients send. */
  id: string;
  /** The id this vendor knows the model by (OpenRouter's `openai/gpt-4o-mini`); equals `id` when the file gives none. */
  upstreamId: string;
  /** Set when this preset owns the model (carries its prices); null when it only serves a model another preset owns. */
  definition: ModelDefinition | null;
}

export interface Preset {
  /** Equals the folder name. */
  id: string;
  displayName: string;
  /** openai-chat / openai-responses: ends in /v1 (the adapter appends /chat/completions or /responses); anthropic / gemini: the origin. */
  baseUrl: string;
  /** The protocol a line made from this preset speaks. */
  protocol: FormatId;
  /** How the vendor takes its key: a line made from the preset sends it so (core/auth.ts). */
  auth: AuthStyle;
  /** The vendor's conventional environment variable for its key; null when auth is `none`. */
  apiKeyEnv: string | null;
  docs: string;
  /** The public page the prices come from; null for a preset that owns no models. */
  pricingSource: string | null;
  /** YYYY-MM-DD the figures were last checked. */
  checked: string;
  quirks: Quirks;
  /** anthropic presets: the `anthropic-version` lines made from it send with translated requests (absent: the wire format's default). */
  anthropicVersion?: string;
  /** Verification notes: sources, tiers not modelled, lifecycle, what was left out and why. */
  notes: string[];
  models: PresetModel[];
  /** A server on this machine (Ollama, LM Studio): models of a line made from it are added to the catalogue at price 0 by default. */
  local: boolean;
  /** Ids the vendor has shut down, with what to use instead. */
  retired: RetiredModel[];
}

/** A catalogue model id: what clients send (Ollama's `qwen3-coder:30b`, OpenRouter's `vendor/model`, LM Studio's `name@quant`). */
export const MODEL_ID = new RegExp(MODEL_ID_PATTERN);
const DATE = new RegExp(DATE_PATTERN);

export function presetsDir(): string {
  return join(packageRoot(), 'gateway', 'presets');
}

/** Every gateway/presets/<id>/preset.json, checked, in folder-name order. */
export function loadPresets(dir = presetsDir()): Map<string, Preset> {
  const presets = new Map<string, Preset>();
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  for (const folder of folders) {
    const file = join(dir, folder, 'preset.json');
    if (!existsSync(file)) throw new Error(`gateway/presets/${folder}/ has no preset.json`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`gateway/presets/${folder}/preset.json is not valid JSON: ${(err as Error).message}`);
    }
    presets.set(folder, parsePreset(folder, raw));
  }
  return presets;
}

/**
 * Checks one preset.json's content; `folder` is the folder it was read from. The schema
 * (preset-schema.ts) checks each field; the rules here join fields. Every message names the file,
 * and the model or retired entry and the field it is about.
 */
export function parsePreset(folder: string, raw: unknown): Preset {
  const at = `gateway/presets/${folder}/preset.json`;
  const fail = (msg: string): never => {
    throw new Error(`${at}: ${msg}`);
  };
  if (!Value.Check(PresetFile, raw)) return fail(presetFileProblem(raw) ?? 'does not fit the preset schema');
  const { id, protocol, auth, baseUrl, apiKeyEnv, pricingSource, checked } = raw;
  if (id !== folder) fail(`id "${id}" must equal the folder name "${folder}"`);
  const urlProblem = baseUrlProblem(protocol, baseUrl);
  if (urlProblem) fail(`baseUrl ${urlProblem}`);
  if (auth === 'none' && apiKeyEnv !== null) fail('apiKeyEnv must be null when auth is "none"');
  if (auth !== 'none' && apiKeyEnv === null)
    fail('apiKeyEnv must name an environment variable (upper case, digits, underscores), never hold a key');
  if (!isDate(checked)) fail(`checked "${checked}" must be a date, YYYY-MM-DD`);
  if (raw.anthropicVersion !== undefined && protocol !== 'anthropic')
    fail('anthropicVersion is for presets whose protocol is anthropic');
  const models: PresetModel[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of raw.models.entries()) {
    const m = presetModel(entry, (msg) => fail(`models[${i}] (${entry.id}): ${msg}`));
    if (seen.has(m.id)) fail(`model ${m.id} is listed twice`);
    seen.add(m.id);
    models.push(m);
  }
  if (pricingSource === null && models.some((m) => m.definition))
    fail('pricingSource is required when the preset prices models');
  const local = raw.local === true;
  if (local && auth !== 'none') fail('a local preset takes no key: auth must be "none"');
  const retired = (raw.retired ?? []).map((r, i): RetiredModel => {
    if (seen.has(r.id)) fail(`retired[${i}]: ${r.id} is also listed in models; a retired id is not served`);
    if (r.retired !== undefined && !isDate(r.retired))
      fail(`retired[${i}]: retired "${r.retired}" must be a date, YYYY-MM-DD`);
    return { id: r.id, retired: r.retired ?? null, replacement: r.replacement, vendor: id };
  });
  return {
    id,
    displayName: raw.displayName,
    baseUrl,
    protocol,
    auth,
    apiKeyEnv,
    docs: raw.docs,
    pricingSource,
    checked,
    quirks: raw.quirks,
    ...(raw.anthropicVersion ? { anthropicVersion: raw.anthropicVersion } : {}),
    notes: raw.notes,
    models,
    local,
    retired,
  };
}

export function isDate(text: string): boolean {
  return DATE.test(text) && !Number.isNaN(Date.parse(text));
}

/** A model entry the schema passed: a reference (no prices) or a definition, with the rules that join its fields. */
function presetModel(entry: PresetFile['models'][number], fail: (msg: string) => never): PresetModel {
  if (entry.upstreamId === entry.id) fail('upstreamId equals id; leave it out');
  const upstreamId = entry.upstreamId ?? entry.id;
  // A reference: the model is owned (and priced) by another preset; repeating its fields here
  // would let two files disagree, so the schema refuses them rather than compare.
  if (!('prices' in entry)) return { id: entry.id, upstreamId, definition: null };
  const limit = outputLimitProblem(entry);
  if (limit) fail(limit);
  const retires = entry.retires ?? null;
  if (retires !== null && !isDate(retires)) fail(`retires "${retires}" must be a date, YYYY-MM-DD`);
  const replacement = entry.replacement ?? null;
  if (replacement !== null && retires === null) fail('replacement is given only with retires');
  if (replacement === entry.id) fail('replacement names the model itself');
  return {
    id: entry.id,
    upstreamId,
    definition: {
      displayName: entry.displayName,
      contextWindow: entry.contextWindow,
      maxOutputTokens: entry.maxOutputTokens,
      nativeProtocols: entry.nativeProtocols,
      prices: presetPrices(entry.prices, fail),
      retires,
      replacement,
      ...(entry.tiers ? { tiers: presetTiers(entry.tiers, fail) } : {}),
      ...(entry.quirks && Object.keys(entry.quirks).length > 0 ? { quirks: entry.quirks } : {}),
    },
  };
}

/** A model's tiers, thresholds rising, prices in micro-USD. */
function presetTiers(tiers: NonNullable<PresetDefinition['tiers']>, fail: (msg: string) => never): PriceTier[] {
  const out: PriceTier[] = [];
  for (const [i, t] of tiers.entries()) {
    const prev = out.at(-1);
    if (prev && t.above <= prev.above) fail(`tiers[${i}].above must be larger than the tier before it`);
    out.push({
      above: t.above,
      prices: presetPrices(t.prices as PresetDefinition['prices'], (m) => fail(`tiers[${i}].${m}`)),
    });
  }
  return out;
}

/** Decimal USD per million tokens → integer micro-USD per million, exactly. */
function presetPrices(text: PresetDefinition['prices'], fail: (msg: string) => never): Prices {
  const out: Partial<Record<PriceKey, number>> = {};
  for (const k of PRICE_KEYS) {
    const v = text[k];
    if (v === undefined) continue;
    try {
      out[k] = parseUsd(v);
    } catch (err) {
      fail(`prices.${k} ${(err as Error).message}`);
    }
  }
  return out as Prices;
}

/**
 * Why a base URL does not fit its protocol, or null. The adapters append the path: `/chat/completions`
 * or `/responses` to an OpenAI-style base that ends in /v1, `/v1/messages` or `/v1beta/models/…` to an
 * Anthropic or Gemini origin. Plain http only on the loopback address (local servers).
 */
export function baseUrlProblem(protocol: FormatId, baseUrl: string): string | null {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return `"${baseUrl}" is not a URL`;
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname)))
    return `"${baseUrl}" must use https (plain http only on 127.0.0.1 / localhost)`;
  if (u.username || u.password || u.search || u.hash)
    return `"${baseUrl}" must not hold credentials, a query or a fragment`;
  if (protocol === 'openai-chat' || protocol === 'openai-responses') {
    if (!u.pathname.endsWith('/v1'))
      return `"${baseUrl}" must end in /v1 for ${protocol} (the adapter appends /chat/completions or /responses)`;
  } else if (u.pathname !== '/' || baseUrl.endsWith('/')) {
    return `"${baseUrl}" must be the origin, with no path or trailing slash, for ${protocol} (the adapter appends the versioned path)`;
  }
  return null;
}
