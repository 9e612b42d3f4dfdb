/**
 * Vendor request quirks: what an upstream needs besides its wire format, declared once with the
 * values each may take. A catalogue model carries the quirks its own vendor's API needs (its
 * preset's model data, or a custom model's), whichever line serves it; a preset's own quirks are
 * what its endpoint needs and are copied onto lines made from it; a line may set or clear each one
 * (core/quirks.ts effectiveQuirks joins them). The preset loader and the admin API refuse a name or
 * value not in this table: a new quirk needs code in a wire format first.
 */
import { Type, type TLiteral, type TNull, type TOptional, type TUnion } from '@sinclair/typebox';

export const QUIRK_VALUES = {
  /** openai-chat: which field carries the output limit (OpenAI's reasoning models refuse `max_tokens`). */
  maxTokensField: ['max_tokens', 'max_completion_tokens'],
  /**
   * openai-chat: the assistant-message field in which the vendor takes its reasoning back
   * (DeepSeek, Kimi: `reasoning_content`, refused with a 400 when missing from a tool-call turn
   * in thinking mode; OpenRouter: `reasoning`, which it hands on to the model's own vendor in that
   * vendor's field). With it every assistant message carries one, empty where the turn had no
   * reasoning, and thinking "disabled" is sent in the vendor's own switch (`thinking: {type:
   * "disabled"}`, OpenRouter's `reasoning: {enabled: false}`). Without it reasoning stays out of
   * the history: strict servers refuse unknown message fields.
   */
  reasoningField: ['reasoning_content', 'reasoning'],
  /**
   * anthropic: the upstream has Anthropic's native structured output (`output_config.format`
   * with a JSON Schema). Without it a JSON schema is asked for in the system prompt.
   */
  structuredOutput: ['output_config'],
} as const;

export type Quirks = { -readonly [K in keyof typeof QUIRK_VALUES]?: (typeof QUIRK_VALUES)[K][number] };

export type QuirkName = keyof typeof QUIRK_VALUES;

/** The wire format of the lines each quirk is for (the upstream side that honours it). */
export const QUIRK_FORMAT: Record<QuirkName, 'openai-chat' | 'anthropic'> = {
  maxTokensField: 'openai-chat',
  reasoningField: 'openai-chat',
  structuredOutput: 'anthropic',
};

/** Every quirk's name, in the table's order. */
export const QUIRK_NAMES = Object.keys(QUIRK_VALUES) as QuirkName[];

/**
 * A line's own word on each quirk: a value sets it, `null` clears it even where the model's vendor
 * data asks for it (a proxy that strips the field, say), and a missing quirk leaves it to the model.
 */
export type LineQuirks = { -readonly [K in QuirkName]?: (typeof QUIRK_VALUES)[K][number] | null };

// Unions of literals (not enums): TypeBox's Value checks them too, in a browser as on the server.
const valueEnum = (k: QuirkName) => Type.Union(QUIRK_VALUES[k].map((v) => Type.Literal(v)));

/** Quirks as a model or a preset states them. */
export const QuirksSchema = Type.Object(
  Object.fromEntries(QUIRK_NAMES.map((k) => [k, Type.Optional(valueEnum(k))])) as {
    [K in QuirkName]: TOptional<TUnion<TLiteral<(typeof QUIRK_VALUES)[K][number]>[]>>;
  },
  { additionalProperties: false },
);

/** Quirks as a line states them: a value sets one, null clears it. */
export const LineQuirksSchema = Type.Object(
  Object.fromEntries(QUIRK_NAMES.map((k) => [k, Type.Optional(Type.Union([valueEnum(k), Type.Null()]))])) as {
    [K in QuirkName]: TOptional<TUnion<[TUnion<TLiteral<(typeof QUIRK_VALUES)[K][number]>[]>, TNull]>>;
  },
  { additionalProperties: false },
);

/** Whether `value` is one of the values quirk `name` may take. */
export function isQuirkValue(name: string, value: unknown): boolean {
  return name in QUIRK_VALUES && (QUIRK_VALUES[name as QuirkName] as readonly unknown[]).includes(value);
}
