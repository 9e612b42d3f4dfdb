/**
 * Prices from LiteLLM's `model_prices_and_context_window.json`, the price list many gateways and
 * cost trackers share: an object of entries keyed by model name, prices in USD per token.
 *
 * Matching a catalogue model to an entry, by id:
 * - the entry keyed by the catalogue id itself (`claude-sonnet-4-5`, `gpt-5.4`), or
 * - an entry keyed `<provider>/<catalogue id>` whose `litellm_provider` is that provider and whose
 *   provider is the model's vendor (`gemini/gemini-2.5-flash` for Google's models,
 *   `openrouter/meta-llama/llama-3.3-70b-instruct` for a model added from an OpenRouter line).
 * An entry of the model's own vendor wins over one of another (LiteLLM keeps cloud resellers' prices
 * under bare keys too); between two of the vendor, the bare key wins. Prefixes of other providers
 * (`bedrock/`, `azure/`, `vertex_ai/`…) are resellers' prices and never match.
 *
 * Tiers are read from the fields named `<price field>_above_<N>k_tokens` (`input_cost_per_token_above_272k_tokens`):
 * one tier per threshold, above N × 1000 prompt tokens (contract/model-fields.ts PriceTier). Per-request,
 * per-image and per-second prices are not modelled.
 */
import { createHash } from 'node:crypto';
import { numberText, perTokenToMicroPerMillion } from '../core/money.js';
import type { PriceKey } from '../contract/prices.js';
import { isObject } from '../core/json.js';
import type { CatalogueModel } from './catalogue.js';
import type { PriceTier } from '../contract/model-fields.js';

/** LiteLLM's field of each price kind. A kind without one is not imported. */
export const LITELLM_FIELDS: Partial<Record<PriceKey, string>> = {
  input: 'input_cost_per_token',
  output: 'output_cost_per_token',
  cacheRead: 'cache_read_input_token_cost',
  cacheWrite: 'cache_creation_input_token_cost',
  audioInput: 'input_cost_per_audio_token',
  imageInput: 'input_cost_per_image_token',
};

/** LiteLLM provider names that differ from the preset (vendor) id. */
const VENDOR_OF_PROVIDER = new Map([['gemini', 'google']]);
/** Modes of models billed per token for text; image generation, embeddings and the like are not. */
const TOKEN_MODES = new Set(['chat', 'completion', 'responses']);

export interface PriceChange {
  kind: PriceKey;
  from: number;
  to: number;
  exact: boolean;
}

export interface PlannedChange {
  id: string;
  entry: string;
  target: 'override' | 'custom';
  prices: PriceChange[];
  /** The file's tiers, where they differ from the model's. */
  tiers?: PriceTier[];
}

export interface ImportPlan {
  entries: number;
  changes: PlannedChange[];
  unchanged: string[];
  unmatched: string[];
  skipped: { id: string; entry: string; reason: string }[];
  /** Fingerprint of `changes`: what was shown is what is written. */
  digest: string;
}

interface Entry {
  key: string;
  provider: string | null;
  value: Record<string, unknown>;
}

function vendorOf(provider: string | null): string | null {
  return provider === null ? null : (VENDOR_OF_PROVIDER.get(provider) ?? provider);
}

/** The entry a catalogue model takes its prices from, or null. */
function pick(m: CatalogueModel, bare: Entry | undefined, prefixed: Entry[]): Entry | null {
  const own = prefixed.filter(
    (e) => e.key.slice(0, e.key.indexOf('/')) === e.provider && vendorOf(e.provider) === m.vendor,
  );
  if (bare && vendorOf(bare.provider) === m.vendor) return bare;
  return own[0] ?? bare ?? null;
}

/** Throws an Error saying why, when `data` is not a LiteLLM price file. */
function entriesOf(data: unknown): Entry[] {
  if (!isObject(data)) throw new Error('a LiteLLM price file is a JSON object of entries keyed by model name');
  const entries: Entry[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === 'sample_spec' || !isObject(value)) continue;
    entries.push({ key, provider: typeof value.litellm_provider === 'string' ? value.litellm_provider : null, value });
  }
  if (entries.length > 0 && !entries.some((e) => LITELLM_FIELDS.input! in e.value || e.provider !== null)) {
    throw new Error('no entry has litellm_provider or input_cost_per_token: this is not a LiteLLM price file');
  }
  return entries;
}

/** The entry's prices by kind, in micro-USD per million tokens, or why it cannot be used. */
function pricesOf(
  e: Entry,
): { prices: Partial<Record<PriceKey, { micro: number; exact: boolean }>>; tiers: PriceTier[] } | { reason: string } {
  const mode = e.value.mode;
  if (typeof mode === 'string' && !TOKEN_MODES.has(mode))
    return { reason: `its mode is ${mode}, not a chat model priced per token` };
  const prices: Partial<Record<PriceKey, { micro: number; exact: boolean }>> = {};
  for (const [kind, field] of Object.entries(LITELLM_FIELDS) as [PriceKey, string][]) {
    const v = e.value[field];
    if (v === undefined || v === null) continue;
    const text = typeof v === 'number' ? numberText(v) : null;
    if (text === null) return { reason: `${field} is ${JSON.stringify(v)}, not a price` };
    try {
      prices[kind] = perTokenToMicroPerMillion(text);
    } catch (err) {
      return { reason: `${field}: ${(err as Error).message}` };
    }
  }
  if (prices.input === undefined && prices.output === undefined)
    return { reason: 'it has no input or output price per token' };
  const tiers = tiersOf(e);
  return 'reason' in tiers ? tiers : { prices, tiers: tiers.tiers };
}

const ABOVE = /^(.+)_above_(\d+)k_tokens$/;
const KIND_OF_FIELD = new Map(Object.entries(LITELLM_FIELDS).map(([k, f]) => [f, k as PriceKey]));

/** The entry's `…_above_<N>k_tokens` prices as tiers, thresholds rising. */
function tiersOf(e: Entry): { tiers: PriceTier[] } | { reason: string } {
  const byAbove = new Map<number, PriceTier['prices']>();
  for (const [field, v] of Object.entries(e.value)) {
    const m = ABOVE.exec(field);
    const kind = m ? KIND_OF_FIELD.get(m[1]!) : undefined;
    if (!m || !kind || v === null || v === undefined) continue;
    const text = typeof v === 'number' ? numberText(v) : null;
    if (text === null) return { reason: `${field} is ${JSON.stringify(v)}, not a price` };
    const above = Number(m[2]) * 1000;
    if (!Number.isSafeInteger(above) || above <= 0) continue;
    try {
      byAbove.set(above, { ...byAbove.get(above), [kind]: perTokenToMicroPerMillion(text).micro });
    } catch (err) {
      return { reason: `${field}: ${(err as Error).message}` };
    }
  }
  return {
    tiers: [...byAbove.entries()].sort(([a], [b]) => a - b).map(([above, prices]) => ({ above, prices })),
  };
}

/** Two tier lists say the same (absent and empty alike). */
function sameTiers(a: readonly PriceTier[] | undefined, b: readonly PriceTier[]): boolean {
  const norm = (t: readonly PriceTier[] | undefined): string =>
    JSON.stringify(
      (t ?? []).map((x) => ({
        above: x.above,
        prices: Object.fromEntries(Object.entries(x.prices).sort(([p], [q]) => p.localeCompare(q))),
      })),
    );
  return norm(a) === norm(b);
}

/**
 * What importing the file would change in the catalogue: for each model (or only those named),
 * the kinds whose price differs. Kinds the entry does not price keep the catalogue's price.
 */
export function planLiteLLMImport(
  data: unknown,
  catalogue: Iterable<CatalogueModel>,
  only?: readonly string[],
): ImportPlan {
  const entries = entriesOf(data);
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const byRest = new Map<string, Entry[]>();
  for (const e of entries) {
    const slash = e.key.indexOf('/');
    if (slash > 0) byRest.set(e.key.slice(slash + 1), [...(byRest.get(e.key.slice(slash + 1)) ?? []), e]);
  }
  const plan: Omit<ImportPlan, 'digest'> = {
    entries: entries.length,
    changes: [],
    unchanged: [],
    unmatched: [],
    skipped: [],
  };
  for (const m of catalogue) {
    if (only && !only.includes(m.id)) continue;
    const entry = pick(m, byKey.get(m.id), byRest.get(m.id) ?? []);
    if (!entry) {
      plan.unmatched.push(m.id);
      continue;
    }
    const read = pricesOf(entry);
    if ('reason' in read) {
      plan.skipped.push({ id: m.id, entry: entry.key, reason: read.reason });
      continue;
    }
    const changes: PriceChange[] = [];
    for (const [kind, p] of Object.entries(read.prices) as [PriceKey, { micro: number; exact: boolean }][]) {
      // A kind the model does not price apart is billed at input: compare with that.
      const from = m.prices[kind] ?? m.prices.input;
      if (p.micro !== from) changes.push({ kind, from, to: p.micro, exact: p.exact });
    }
    // A file without tiers for the model says nothing about them: the catalogue's stay.
    const tiers = read.tiers.length > 0 && !sameTiers(m.tiers, read.tiers) ? read.tiers : undefined;
    if (changes.length === 0 && !tiers) plan.unchanged.push(m.id);
    else
      plan.changes.push({
        id: m.id,
        entry: entry.key,
        target: m.origin === 'custom' ? 'custom' : 'override',
        prices: changes,
        ...(tiers ? { tiers } : {}),
      });
  }
  const digest = createHash('sha256').update(JSON.stringify(plan.changes)).digest('hex').slice(0, 16);
  return { ...plan, digest };
}
