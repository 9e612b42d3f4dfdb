/**
 * The fields of a catalogue model, declared once as a TypeBox schema: what a preset's model
 * definition becomes (catalogue/presets.ts), a custom model record in config.json
 * (store/types.ts), a catalogue entry (catalogue/catalogue.ts), the admin API's model view, and
 * the bodies that add or change a model (which add their own bounds to these fields) all derive
 * from it. Prices are integer micro-USD per million tokens, one field per price kind of the
 * usage-bucket table.
 *
 * The schema holds what every catalogue model meets, whatever its origin; where a model comes
 * from adds its own checks (a preset file's, the config's, an admin body's). One rule joins two
 * fields and no schema can state it: `outputLimitProblem`.
 */
import { Type, type Static, type TInteger, type TLiteral, type TOptional, type TUnion } from '@sinclair/typebox';
import { FORMATS, type FormatId } from './formats.js';
import { QuirksSchema } from './quirks.js';
import { PRICE_KEYS, REQUIRED_PRICES, type PriceKey, type RequiredPriceKey } from './usage-buckets.js';

/** A catalogue id: letters, digits and . _ : / @ + - (Ollama's `qwen3-coder:30b`, OpenRouter's `vendor/model`, LM Studio's `name@quant`). */
export const MODEL_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$';

/** A vendor name a user gives a model: letters, digits and . _ - (the admin API refuses others). */
export const USER_VENDOR_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

/** One of the wire format ids, as literals (which TypeBox's Value can check, in a browser too). */
const FormatIdLiteral = Type.Union(FORMATS.map((f) => Type.Literal(f))) as TUnion<TLiteral<FormatId>[]>;

/** The same, as an enum: what request bodies use, so a wrong value gets an error listing the choices. */
export const FormatIdEnum = Type.Unsafe<FormatId>({ type: 'string', enum: [...FORMATS] });

const Int = Type.Integer();

/** Every model has the required kinds; the others only where priced apart (else billed at their fallback). */
export const ModelPrices = Type.Object(
  Object.fromEntries(
    PRICE_KEYS.map((k) => [k, (REQUIRED_PRICES as readonly string[]).includes(k) ? Int : Type.Optional(Int)]),
  ) as { [K in RequiredPriceKey]: TInteger } & { [K in Exclude<PriceKey, RequiredPriceKey>]: TOptional<TInteger> },
);

/**
 * A price tier: from `above` prompt tokens (input of every kind, cached or not, counted over the
 * whole request), the whole request is billed at these prices, each kind given replacing the
 * model's own (OpenAI's GPT-5.4 above 272K, Gemini Pro above 200K).
 */
export const PriceTier = Type.Object(
  {
    /** Applies to a request whose prompt has more tokens than this. */
    above: Type.Integer({ minimum: 1 }),
    /** The kinds whose price changes, micro-USD per million tokens; the others keep the model's. */
    prices: Type.Partial(ModelPrices),
  },
  { additionalProperties: false },
);
export type PriceTier = Static<typeof PriceTier>;

export const ModelFields = Type.Object({
  /** The catalogue id: what clients send. */
  id: Type.String(),
  /** Who makes or sells it: a preset's id, or what the user gave a custom model. */
  vendor: Type.String(),
  displayName: Type.String(),
  contextWindow: Int,
  /** The most output tokens one request may produce (the vendor's cap, else the context window); bounds the reservation. */
  maxOutputTokens: Int,
  /** Wire protocols the vendor's own API speaks for this model. */
  nativeProtocols: Type.Array(FormatIdLiteral),
  /** What requests are billed at, micro-USD per million tokens. */
  prices: ModelPrices,
  /** YYYY-MM-DD the vendor shuts the model down; from that day a request for it is refused, naming `replacement`. */
  retires: Type.Union([Type.String(), Type.Null()]),
  /** The catalogue model to use instead once it is retired. */
  replacement: Type.Union([Type.String(), Type.Null()]),
  /** Higher prices for long prompts, lowest threshold first; absent: one price per kind whatever the length. */
  tiers: Type.Optional(Type.Array(PriceTier)),
  /**
   * What the model's own upstream needs whichever line serves it (contract/quirks.ts): DeepSeek's
   * reasoning back in `reasoning_content`, Anthropic's native structured output. A line may set or clear each.
   */
  quirks: Type.Optional(QuirksSchema),
});
export type ModelFields = Static<typeof ModelFields>;

/** Why a model's output limit and context window do not fit together, or null. */
export function outputLimitProblem(m: Pick<ModelFields, 'contextWindow' | 'maxOutputTokens'>): string | null {
  return m.maxOutputTokens > m.contextWindow ? 'maxOutputTokens is larger than contextWindow' : null;
}
