/**
 * What the catalogue routes accept: the model square's query, custom models and price overrides,
 * price imports. Prices are integer micro-USD per million tokens, one field per price kind
 * (the usage-bucket table, contract/usage-buckets.ts), so a new kind reaches every body at once.
 */
import {
  CloneType,
  Type,
  type Static,
  type TInteger,
  type TNull,
  type TOptional,
  type TUnion,
} from '@sinclair/typebox';
import { FormatIdEnum, MODEL_ID_PATTERN, ModelFields, USER_VENDOR_PATTERN } from '../model-fields.js';
import { QuirksSchema } from '../quirks.js';
import { PRICE_KEYS, type PriceKey } from '../usage-buckets.js';

/** $1,000 per token: far above any real price, far below where integers lose precision. */
const MAX_PRICE_MICRO = 1_000_000_000_000_000;
const PriceMicro = Type.Integer({ minimum: 0, maximum: MAX_PRICE_MICRO });

// Enums (not unions of literals) so a wrong value gets a readable error listing the choices.
const Protocol = FormatIdEnum;
const Status = Type.Unsafe<'active' | 'retiring' | 'retired'>({
  type: 'string',
  enum: ['active', 'retiring', 'retired'],
});
const Origin = Type.Unsafe<'preset' | 'custom'>({ type: 'string', enum: ['preset', 'custom'] });

/** A catalogue id: letters, digits and . _ : / @ + - (Ollama's `qwen3-coder:30b`, OpenRouter's `vendor/model`). */
export const CatalogueId = CloneType(ModelFields.properties.id, {
  minLength: 1,
  maxLength: 200,
  pattern: MODEL_ID_PATTERN,
});
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const Tokens = { minimum: 1, maximum: 1_000_000_000 };

/** Prices by kind, each optional: µ$ per million tokens. */
export const PricesBody = Type.Object(
  Object.fromEntries(PRICE_KEYS.map((k) => [k, Type.Optional(PriceMicro)])) as { [K in PriceKey]: TOptional<TInteger> },
  { additionalProperties: false },
);
export type PricesBody = Static<typeof PricesBody>;

/** Prices to change: a kind given replaces its price; null takes the user's price of that kind away (back to the preset's, or to billing at `input`). */
export const PriceChangesBody = Type.Object(
  Object.fromEntries(PRICE_KEYS.map((k) => [k, Type.Optional(Type.Union([PriceMicro, Type.Null()]))])) as {
    [K in PriceKey]: TOptional<TUnion<[TInteger, TNull]>>;
  },
  { additionalProperties: false },
);
export type PriceChangesBody = Static<typeof PriceChangesBody>;

/** A price tier as a body gives it: above so many prompt tokens, these prices (contract/model-fields.ts PriceTier). */
export const PriceTierBody = Type.Object(
  { above: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), prices: PricesBody },
  { additionalProperties: false },
);

/** A model's tiers, thresholds rising; [] removes them. */
export const PriceTiersBody = Type.Array(PriceTierBody, { maxItems: 8 });

export const ModelParams = Type.Object({ id: Type.String() });

export const ModelsQuery = Type.Object({
  /** Words that must all appear in the id, display name or vendor (case-insensitive). */
  q: Type.Optional(Type.String({ maxLength: 200 })),
  vendor: Type.Optional(Type.String()),
  /** Models a client of this protocol reaches without translation: a line of it serves them, or their vendor speaks it. */
  protocol: Type.Optional(Protocol),
  /** true: an enabled line serves it; false: none does. */
  served: Type.Optional(Type.Boolean()),
  /** Models the keys of this group may use. */
  group: Type.Optional(Type.String()),
  status: Type.Optional(Status),
  origin: Type.Optional(Origin),
});
export type ModelsQuery = Static<typeof ModelsQuery>;

/** The model's fields (contract/model-fields.ts) with the bounds of what a user may set. */
const field = ModelFields.properties;
const modelFields = {
  /** Who makes or sells it (default `custom`). */
  vendor: Type.Optional(CloneType(field.vendor, { minLength: 1, maxLength: 64, pattern: USER_VENDOR_PATTERN })),
  displayName: Type.Optional(CloneType(field.displayName, { minLength: 1, maxLength: 200 })),
  /** Default 128,000. */
  contextWindow: Type.Optional(CloneType(field.contextWindow, Tokens)),
  /** Bounds what a request reserves. Default: the context window. */
  maxOutputTokens: Type.Optional(CloneType(field.maxOutputTokens, Tokens)),
  /** Protocols its vendor's API speaks (default `openai-chat`). */
  nativeProtocols: Type.Optional(Type.Array(Protocol, { minItems: 1, uniqueItems: true })),
  /** YYYY-MM-DD from which requests for it are refused (null: no date). */
  retires: Type.Optional(Type.Union([Day, Type.Null()])),
  /** The catalogue model a refused request is told to use. */
  replacement: Type.Optional(Type.Union([CatalogueId, Type.Null()])),
  /** Higher prices above a prompt length (a preset model: over the preset's; [] removes them). */
  tiers: Type.Optional(PriceTiersBody),
  /** What the model's upstream needs on any line that serves it (contract/quirks.ts); {} clears them. */
  quirks: Type.Optional(QuirksSchema),
};

export const AddModelBody = Type.Object(
  {
    id: CatalogueId,
    ...modelFields,
    /** `input` and `output` are required (0 for a free model); cacheRead and cacheWrite default to `input`. */
    prices: PricesBody,
  },
  { additionalProperties: false },
);
export type AddModelBody = Static<typeof AddModelBody>;

/** A custom model may change any field; a preset model only its prices (an override). */
export const UpdateModelBody = Type.Object(
  { ...modelFields, prices: Type.Optional(PriceChangesBody) },
  { additionalProperties: false },
);
export type UpdateModelBody = Static<typeof UpdateModelBody>;

export const RemoveModelQuery = Type.Object({
  /** Also take the model off the lines, aliases and groups that name it. */
  force: Type.Optional(Type.Boolean()),
});
export type RemoveModelQuery = Static<typeof RemoveModelQuery>;

export const ImportPricesBody = Type.Object(
  {
    /** An http(s) URL of a LiteLLM price file, which the gateway downloads. */
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    /** Or the file's content, read by the caller. */
    data: Type.Optional(Type.Object({})),
    /** Only these catalogue ids. */
    only: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
    /** Work out the changes and write nothing. */
    dryRun: Type.Optional(Type.Boolean()),
    /** The `digest` of a dry run: refuse if the changes are not those shown. */
    expect: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type ImportPricesBody = Static<typeof ImportPricesBody>;

/** What a line adds to the catalogue for the ids it serves that the catalogue lacks. */
export const AddModelsBody = Type.Object(
  {
    /** Price 0 for every kind. */
    free: Type.Optional(Type.Boolean()),
    /** The same prices for each (input and output required). */
    prices: Type.Optional(PricesBody),
    vendor: modelFields.vendor,
    contextWindow: modelFields.contextWindow,
    maxOutputTokens: modelFields.maxOutputTokens,
  },
  { additionalProperties: false },
);
export type AddModelsBody = Static<typeof AddModelsBody>;

export const ImportLineModelsBody = Type.Object(
  {
    /** Price 0 for listed ids whose price the list does not give (a local server's default). */
    free: Type.Optional(Type.Boolean()),
    /** Prices for listed ids whose price the list does not give (input and output required). */
    prices: Type.Optional(PricesBody),
    /** Only these of the listed ids. */
    only: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
    dryRun: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ImportLineModelsBody = Static<typeof ImportLineModelsBody>;
