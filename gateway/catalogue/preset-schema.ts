/**
 * What a gateway/presets/<vendor>/preset.json may hold, as one TypeBox schema, and the sentence
 * each kind of mistake gets. presets.ts checks a file against it, then applies the rules that join
 * fields (id and folder, base URL and protocol, auth and key variable, …). The model fields follow
 * contract/model-fields.ts; prices are decimal strings of USD per million tokens (exact, never
 * floats), one per price kind of the usage-bucket table.
 *
 * A schema names its mistake in `problem` (a wrong value), `missing` (an absent required field),
 * `twice` (a list with a repeat), and an object says what it is in `what` (for "unknown field …
 * in <what>"), or words the whole sentence for an unknown field in `unknown`. `{field}` is where the
 * mistake is (`prices.input`), `{value}` the value found, `{key}` an unknown field,
 * `{allowed}` the fields that are.
 */
import {
  CloneType,
  Type,
  type Static,
  type TLiteral,
  type TOptional,
  type TSchema,
  type TString,
  type TUnion,
} from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { FORMATS } from '../contract/formats.js';
import { MODEL_ID_PATTERN, ModelFields } from '../contract/model-fields.js';
import { PRICE_KEYS, REQUIRED_PRICES, type PriceKey } from '../contract/usage-buckets.js';
import { AUTH_STYLES } from '../core/auth.js';
import { QUIRK_VALUES } from '../core/quirks.js';

/** USD per million tokens, as a string, so it converts exactly to integer micro-USD. */
export const PRICE_TEXT = /^\d+(\.\d{1,6})?$/;
/** YYYY-MM-DD (presets.ts's isDate also checks it is a day of the calendar). */
export const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** One of a list of strings, as a union of literals (which TypeBox's Value checks). */
function OneOf<const T extends readonly string[]>(values: T, problem: string): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { problem },
  );
}

const TEXT = { pattern: '\\S', problem: '{field} must be a non-empty string' };
const Text = Type.String(TEXT);
const Https = Type.String({
  pattern: '^https://[^\\s]+$',
  problem: '{field} must be an https URL',
  missing: '{field} must be a non-empty string',
});
const Day = Type.String({ pattern: DATE_PATTERN, problem: '{field} "{value}" must be a date, YYYY-MM-DD' });
const TOKENS = {
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  problem: '{field} must be a positive whole number of tokens',
};
const PriceText = Type.String({
  pattern: PRICE_TEXT.source,
  // Strings, never JSON numbers: 0.1 as a float is not 0.1, and money must be exact.
  problem: '{field} must be a decimal string of USD per million tokens with at most 6 decimals, e.g. "0.15"',
  missing: '{field} is required',
});

const ModelId = Type.String({
  pattern: MODEL_ID_PATTERN,
  problem: '{field} "{value}" may hold only letters, digits and . _ : / @ + -',
  missing: '{field} must be a non-empty string',
});

const PresetPrices = Type.Object(
  Object.fromEntries(
    PRICE_KEYS.map((k) => [
      k,
      (REQUIRED_PRICES as readonly string[]).includes(k) ? PriceText : Type.Optional(PriceText),
    ]),
  ) as Record<PriceKey, TString | TOptional<TString>>,
  { additionalProperties: false, what: 'prices', problem: '{field} must be an object' },
);

type Quirk = keyof typeof QUIRK_VALUES;
const PresetQuirks = Type.Object(
  Object.fromEntries(
    Object.entries(QUIRK_VALUES).map(([k, values]) => [
      k,
      Type.Optional(OneOf(values, `{field} must be one of ${values.join(', ')}`)),
    ]),
  ) as { [K in Quirk]: TOptional<TUnion<TLiteral<(typeof QUIRK_VALUES)[K][number]>[]>> },
  {
    additionalProperties: false,
    problem: '{field} must be an object ({} when there are none)',
    unknown: `unknown quirk "{key}" (known: ${Object.keys(QUIRK_VALUES).join(', ')}); a new quirk needs adapter code first`,
  },
);

/**
 * A price tier: from `above` prompt tokens the whole request is billed at these prices, each kind
 * given replacing the model's (contract/model-fields.ts PriceTier), as decimal strings.
 */
const PresetTier = Type.Object(
  {
    above: Type.Integer(TOKENS),
    prices: Type.Object(
      Object.fromEntries(PRICE_KEYS.map((k) => [k, Type.Optional(PriceText)])) as Record<PriceKey, TOptional<TString>>,
      { additionalProperties: false, what: 'tier prices', problem: '{field} must be an object', minProperties: 1 },
    ),
  },
  { additionalProperties: false, what: 'a price tier', problem: '{field} must be an object' },
);

const field = ModelFields.properties;
const reference = { id: ModelId, upstreamId: Type.Optional(Text) };

/** A model another preset owns (and prices): its id, and the id this vendor knows it by. */
export const PresetReference = Type.Object(reference, {
  additionalProperties: false,
  what: 'a reference to a model another preset owns (no prices)',
  problem: 'must be an object',
});

/** A model this preset owns: its fields (contract/model-fields.ts) with prices as text. */
export const PresetDefinition = Type.Object(
  {
    ...reference,
    displayName: CloneType(field.displayName, TEXT),
    contextWindow: CloneType(field.contextWindow, TOKENS),
    maxOutputTokens: CloneType(field.maxOutputTokens, TOKENS),
    nativeProtocols: Type.Array(
      OneOf(FORMATS, `unknown protocol {json} in nativeProtocols (known: ${FORMATS.join(', ')})`),
      {
        minItems: 1,
        uniqueItems: true,
        problem: '{field} must be a non-empty list',
        twice: '{field} lists a protocol twice',
      },
    ),
    prices: PresetPrices,
    /** Higher prices above a prompt length, lowest threshold first. */
    tiers: Type.Optional(Type.Array(PresetTier, { minItems: 1, problem: '{field} must be a non-empty list' })),
    /** What this model's upstream needs whichever line serves it (contract/quirks.ts). */
    quirks: Type.Optional(PresetQuirks),
    retires: Type.Optional(Day),
    replacement: Type.Optional(Text),
  },
  { additionalProperties: false, what: 'a model definition', problem: 'must be an object' },
);

const RetiredEntry = Type.Object(
  { id: Text, retired: Type.Optional(Day), replacement: Text },
  { additionalProperties: false, what: 'a retired model', problem: 'must be an object' },
);

export const PresetFile = Type.Object(
  {
    /** Equals the folder name. */
    id: Type.String({
      pattern: '^[a-z0-9][a-z0-9-]*$',
      problem: '{field} "{value}" must be lower-case letters, digits and dashes',
      missing: '{field} must be a non-empty string',
    }),
    displayName: Text,
    baseUrl: Text,
    protocol: OneOf(FORMATS, `{field} must be one of ${FORMATS.join(', ')}`),
    auth: OneOf(AUTH_STYLES, `{field} must be one of ${AUTH_STYLES.join(', ')}`),
    apiKeyEnv: Type.Union([Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), Type.Null()], {
      problem: '{field} must name an environment variable (upper case, digits, underscores), never hold a key',
    }),
    docs: Https,
    pricingSource: Type.Union([Https, Type.Null()], { problem: '{field} must be an https URL' }),
    checked: Day,
    quirks: PresetQuirks,
    /** anthropic presets: the `anthropic-version` a line made from it sends with translated requests. */
    anthropicVersion: Type.Optional(Day),
    notes: Type.Array(Type.String({ pattern: '\\S', problem: 'notes must be a list of strings' }), {
      problem: '{field} must be a list of strings',
    }),
    models: Type.Array(Type.Union([PresetDefinition, PresetReference]), { problem: '{field} must be a list' }),
    local: Type.Optional(Type.Boolean({ problem: '{field} must be true or false' })),
    retired: Type.Optional(Type.Array(RetiredEntry, { problem: '{field} must be a list' })),
  },
  { additionalProperties: false, what: 'the preset', problem: 'must hold a JSON object' },
);
export type PresetFile = Static<typeof PresetFile>;
export type PresetDefinition = Static<typeof PresetDefinition>;

/** Why a preset.json's content does not fit the schema, in one sentence naming the field; null when it fits. */
export function presetFileProblem(raw: unknown): string | null {
  const first = pick(Value.Errors(PresetFile, raw));
  return first ? describe(first, raw) : null;
}

/**
 * The error to report: the first, except that an unknown field in the object a required field is
 * missing from is named instead (a misspelt field is why the right one is missing).
 */
function pick(errors: Iterable<ValueError>): ValueError | undefined {
  const all = [...errors];
  const first = all[0];
  if (first?.type !== ValueErrorType.ObjectRequiredProperty) return first;
  const parent = (e: ValueError): string => e.path.slice(0, e.path.lastIndexOf('/'));
  return all.find((e) => e.type === ValueErrorType.ObjectAdditionalProperties && parent(e) === parent(first)) ?? first;
}

/** The words the schema has for `kind` on `schema`, with the placeholders filled in. */
function words(schema: TSchema, kind: 'problem' | 'missing' | 'twice', values: Record<string, string>): string {
  const template = String(schema[kind] ?? schema.problem ?? '{field} is not valid');
  return template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? '');
}

/** `/models/0/prices/input` → where it is said: `models[0] (acme-1): ` and the field `prices.input`. */
function place(path: string, raw: unknown): { scope: string; field: string } {
  const parts = path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [list, index] = parts;
  if ((list === 'models' || list === 'retired') && index !== undefined && /^\d+$/.test(index)) {
    const entry = (raw as Record<string, unknown[]>)[list]?.[Number(index)];
    const id = list === 'models' && isRecord(entry) && typeof entry.id === 'string' ? ` (${entry.id})` : '';
    return { scope: `${list}[${index}]${id}: `, field: dotted(parts.slice(2)) };
  }
  return { scope: '', field: dotted(parts) };
}

function dotted(parts: string[]): string {
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(error: ValueError, raw: unknown): string {
  // A model entry is a definition when it has prices, a reference when not: say what is wrong
  // with the one it means, not that it is neither.
  if (error.type === ValueErrorType.Union && /^\/models\/\d+$/.test(error.path)) {
    const priced = isRecord(error.value) && 'prices' in error.value;
    const variant = error.errors[priced ? 0 : 1];
    const inner = variant && pick(variant);
    if (inner) return describe(inner, raw);
  }
  const { scope, field } = place(error.path, raw);
  const json = JSON.stringify(error.value) ?? String(error.value);
  const values = { field, json, value: typeof error.value === 'string' ? error.value : json };
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const parts = error.path.split('/').slice(1);
    const key = parts.pop() ?? '';
    const allowed = Object.keys(error.schema.properties as object);
    if (error.schema.unknown) return scope + String(error.schema.unknown).replace('{key}', key);
    const parent = parts.reduce<unknown>(
      (v, p) => (isRecord(v) || Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined),
      raw,
    );
    const extra = isRecord(parent) ? Object.keys(parent).filter((k) => !allowed.includes(k)) : [key];
    return `${scope}unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')} in ${String(error.schema.what)} (allowed: ${allowed.join(', ')})`;
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) return scope + words(error.schema, 'missing', values);
  if (error.type === ValueErrorType.ArrayUniqueItems) return scope + words(error.schema, 'twice', values);
  return scope + words(error.schema, 'problem', values);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
