/**
 * Provider presets: one folder per vendor under gateway/presets/, holding a preset.json that says
 * how to reach the vendor (base URL, wire protocol, auth style, quirk flags) and which catalogue
 * models it serves. Adding an OpenAI-compatible vendor is a folder of data, not code. This file reads and checks one folder at a time; catalogue.ts joins them.
 *
 * Every rule is enforced here, at load, so a bad file stops start-up with a message naming the
 * file and the field, instead of mis-billing later. gateway/catalogue/README.md explains the rules.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLoopbackHost } from '../contract/loopback.js';
import { parseUsd } from '../contract/money.js';
import { AUTH_STYLES, type AuthStyle } from '../core/auth.js';
import { isObject, type JsonObject } from '../core/json.js';
import { packageRoot } from '../core/paths.js';
import { FORMATS, type FormatId } from '../contract/formats.js';
import { QUIRK_VALUES, type Quirks } from '../core/quirks.js';
import { PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type Prices } from '../contract/prices.js';

export { PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type Prices };

/** What the owning preset says about a model; becomes its catalogue entry. */
export interface ModelDefinition {
  displayName: string;
  contextWindow: number;
  /** The vendor's output cap; where it publishes none, the context window. Bounds the reservation. */
  maxOutputTokens: number;
  /** Wire protocols the vendor's own API speaks for this model. */
  nativeProtocols: FormatId[];
  /** micro-USD per million tokens. */
  prices: Prices;
  /** YYYY-MM-DD the vendor shuts the model down (announced); null when none is announced. */
  retires: string | null;
  /** The catalogue model to use instead, named in the answer to a request for it once retired. */
  replacement: string | null;
}

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
  /** Verification notes: sources, tiers not modelled, lifecycle, what was left out and why. */
  notes: string[];
  models: PresetModel[];
  /** A server on this machine (Ollama, LM Studio): models of a line made from it are added to the catalogue at price 0 by default. */
  local: boolean;
  /** Ids the vendor has shut down, with what to use instead. */
  retired: RetiredModel[];
}

/** USD per million tokens, as a string, so it converts exactly to integer micro-USD. */
export const PRICE_TEXT = /^\d+(\.\d{1,6})?$/;
const PRESET_KEYS = [
  'id',
  'displayName',
  'baseUrl',
  'protocol',
  'auth',
  'apiKeyEnv',
  'docs',
  'pricingSource',
  'checked',
  'quirks',
  'notes',
  'models',
  'local',
  'retired',
];
const REFERENCE_KEYS = ['id', 'upstreamId'];
const DEFINITION_KEYS = [
  ...REFERENCE_KEYS,
  'displayName',
  'contextWindow',
  'maxOutputTokens',
  'nativeProtocols',
  'prices',
  'retires',
  'replacement',
];
const RETIRED_KEYS = ['id', 'retired', 'replacement'];
/** A catalogue model id: what clients send (Ollama's `qwen3-coder:30b`, OpenRouter's `vendor/model`, LM Studio's `name@quant`). */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

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

/** Checks one preset.json's content; `folder` is the folder it was read from. */
export function parsePreset(folder: string, raw: unknown): Preset {
  const at = `gateway/presets/${folder}/preset.json`;
  const fail = (msg: string): never => {
    throw new Error(`${at}: ${msg}`);
  };
  if (!isObject(raw)) return fail('must hold a JSON object');
  unknownKeys(raw, PRESET_KEYS, fail, 'the preset');
  const id = text(raw, 'id', fail);
  if (id !== folder) fail(`id "${id}" must equal the folder name "${folder}"`);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) fail(`id "${id}" must be lower-case letters, digits and dashes`);
  const protocol = oneOf(raw, 'protocol', FORMATS, fail);
  const auth = oneOf(raw, 'auth', AUTH_STYLES, fail);
  const baseUrl = text(raw, 'baseUrl', fail);
  const urlProblem = baseUrlProblem(protocol, baseUrl);
  if (urlProblem) fail(`baseUrl ${urlProblem}`);
  const apiKeyEnv = raw.apiKeyEnv;
  if (auth === 'none') {
    if (apiKeyEnv !== null) fail('apiKeyEnv must be null when auth is "none"');
  } else if (typeof apiKeyEnv !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(apiKeyEnv)) {
    fail('apiKeyEnv must name an environment variable (upper case, digits, underscores), never hold a key');
  }
  const pricingSource = raw.pricingSource === null ? null : link(raw, 'pricingSource', fail);
  const checked = text(raw, 'checked', fail);
  if (!isDate(checked)) fail(`checked "${checked}" must be a date, YYYY-MM-DD`);
  const notes = raw.notes;
  if (!Array.isArray(notes) || !notes.every((n) => typeof n === 'string' && n.trim() !== ''))
    fail('notes must be a list of strings');
  if (!Array.isArray(raw.models)) return fail('models must be a list');
  const models: PresetModel[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of raw.models.entries()) {
    const m = parseModel(entry, (msg) =>
      fail(`models[${i}]${isObject(entry) && typeof entry.id === 'string' ? ` (${entry.id})` : ''}: ${msg}`),
    );
    if (seen.has(m.id)) fail(`model ${m.id} is listed twice`);
    seen.add(m.id);
    models.push(m);
  }
  if (pricingSource === null && models.some((m) => m.definition))
    fail('pricingSource is required when the preset prices models');
  if (raw.local !== undefined && typeof raw.local !== 'boolean') fail('local must be true or false');
  const local = raw.local === true;
  if (local && auth !== 'none') fail('a local preset takes no key: auth must be "none"');
  const retired = parseRetired(raw.retired, id, seen, fail);
  return {
    id,
    displayName: text(raw, 'displayName', fail),
    baseUrl,
    protocol,
    auth,
    apiKeyEnv: apiKeyEnv as string | null,
    docs: link(raw, 'docs', fail),
    pricingSource,
    checked,
    quirks: parseQuirks(raw.quirks, fail),
    notes: notes as string[],
    models,
    local,
    retired,
  };
}

export function isDate(text: string): boolean {
  return DATE.test(text) && !Number.isNaN(Date.parse(text));
}

function parseRetired(
  raw: unknown,
  vendor: string,
  listed: ReadonlySet<string>,
  fail: (msg: string) => never,
): RetiredModel[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return fail('retired must be a list');
  return raw.map((entry, i) => {
    const at = (msg: string): never => fail(`retired[${i}]: ${msg}`);
    if (!isObject(entry)) return at('must be an object');
    unknownKeys(entry, RETIRED_KEYS, at, 'a retired model');
    const id = text(entry, 'id', at);
    if (listed.has(id)) at(`${id} is also listed in models; a retired id is not served`);
    const retiredOn = entry.retired === undefined ? null : text(entry, 'retired', at);
    if (retiredOn !== null && !isDate(retiredOn)) at(`retired "${retiredOn}" must be a date, YYYY-MM-DD`);
    return { id, retired: retiredOn, replacement: text(entry, 'replacement', at), vendor };
  });
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

function parseModel(raw: unknown, fail: (msg: string) => never): PresetModel {
  if (!isObject(raw)) return fail('must be an object');
  const id = text(raw, 'id', fail);
  if (!MODEL_ID.test(id)) fail(`id "${id}" may hold only letters, digits and . _ : / @ + -`);
  let upstreamId = id;
  if (raw.upstreamId !== undefined) {
    upstreamId = text(raw, 'upstreamId', fail);
    if (upstreamId === id) fail('upstreamId equals id; leave it out');
  }
  if (raw.prices === undefined) {
    // A reference: the model is owned (and priced) by another preset; repeating its fields here
    // would let two files disagree, so they are refused rather than compared.
    unknownKeys(raw, REFERENCE_KEYS, fail, 'a reference to a model another preset owns (no prices)');
    return { id, upstreamId, definition: null };
  }
  unknownKeys(raw, DEFINITION_KEYS, fail, 'a model definition');
  const contextWindow = count(raw, 'contextWindow', fail);
  const maxOutputTokens = count(raw, 'maxOutputTokens', fail);
  if (maxOutputTokens > contextWindow) fail('maxOutputTokens is larger than contextWindow');
  const protocols = raw.nativeProtocols;
  if (!Array.isArray(protocols) || protocols.length === 0) return fail('nativeProtocols must be a non-empty list');
  for (const p of protocols) {
    if (!(FORMATS as readonly unknown[]).includes(p))
      fail(`unknown protocol ${JSON.stringify(p)} in nativeProtocols (known: ${FORMATS.join(', ')})`);
  }
  if (new Set(protocols).size !== protocols.length) fail('nativeProtocols lists a protocol twice');
  const retires = raw.retires === undefined ? null : text(raw, 'retires', fail);
  if (retires !== null && !isDate(retires)) fail(`retires "${retires}" must be a date, YYYY-MM-DD`);
  const replacement = raw.replacement === undefined ? null : text(raw, 'replacement', fail);
  if (replacement !== null && retires === null) fail('replacement is given only with retires');
  if (replacement === id) fail('replacement names the model itself');
  return {
    id,
    upstreamId,
    definition: {
      displayName: text(raw, 'displayName', fail),
      contextWindow,
      maxOutputTokens,
      nativeProtocols: protocols as FormatId[],
      prices: parsePrices(raw.prices, fail),
      retires,
      replacement,
    },
  };
}

function parsePrices(raw: unknown, fail: (msg: string) => never): Prices {
  if (!isObject(raw)) return fail('prices must be an object');
  unknownKeys(raw, PRICE_KEYS, fail, 'prices');
  const out: Partial<Record<PriceKey, number>> = {};
  for (const k of PRICE_KEYS) {
    const v = raw[k];
    if (v === undefined) {
      if ((REQUIRED_PRICES as readonly string[]).includes(k)) fail(`prices.${k} is required`);
      continue;
    }
    // Strings, never JSON numbers: 0.1 as a float is not 0.1, and money must be exact.
    if (typeof v !== 'string' || !PRICE_TEXT.test(v))
      fail(`prices.${k} must be a decimal string of USD per million tokens with at most 6 decimals, e.g. "0.15"`);
    out[k] = parseUsd(v as string);
  }
  return out as Prices;
}

function parseQuirks(raw: unknown, fail: (msg: string) => never): Quirks {
  if (!isObject(raw)) return fail('quirks must be an object ({} when there are none)');
  const quirks: Quirks = {};
  for (const [k, v] of Object.entries(raw)) {
    const allowed = (QUIRK_VALUES as Record<string, readonly string[] | undefined>)[k];
    if (!allowed)
      fail(
        `unknown quirk "${k}" (known: ${Object.keys(QUIRK_VALUES).join(', ')}); a new quirk needs adapter code first`,
      );
    if (!allowed!.includes(v as string)) fail(`quirks.${k} must be one of ${allowed!.join(', ')}`);
    Object.assign(quirks, { [k]: v });
  }
  return quirks;
}

function unknownKeys(obj: JsonObject, allowed: readonly string[], fail: (msg: string) => never, what: string): void {
  const extra = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (extra.length)
    fail(`unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')} in ${what} (allowed: ${allowed.join(', ')})`);
}

function text(obj: JsonObject, key: string, fail: (msg: string) => never): string {
  const v = obj[key];
  if (typeof v !== 'string' || v.trim() === '') fail(`${key} must be a non-empty string`);
  return v as string;
}

function link(obj: JsonObject, key: string, fail: (msg: string) => never): string {
  const v = text(obj, key, fail);
  if (!/^https:\/\/[^\s]+$/.test(v)) fail(`${key} must be an https URL`);
  return v;
}

function oneOf<T extends string>(obj: JsonObject, key: string, allowed: readonly T[], fail: (msg: string) => never): T {
  const v = obj[key];
  if (!(allowed as readonly unknown[]).includes(v)) fail(`${key} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function count(obj: JsonObject, key: string, fail: (msg: string) => never): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)
    fail(`${key} must be a positive whole number of tokens`);
  return v as number;
}
