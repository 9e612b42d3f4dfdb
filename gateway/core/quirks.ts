/**
 * Vendor request quirks: flags a preset sets (gateway/presets/<vendor>/preset.json), a line made
 * from it keeps, and the upstream side of a wire format honours. Declared once, with the values each
 * flag may take; the preset loader refuses a flag or value not in this table, since a new quirk
 * needs code in a wire format before a preset can ask for it.
 */
export const QUIRK_VALUES = {
  /** openai-chat: which field carries the output limit (OpenAI's reasoning models refuse `max_tokens`). */
  maxTokensField: ['max_tokens', 'max_completion_tokens'],
} as const;

export type Quirks = { -readonly [K in keyof typeof QUIRK_VALUES]?: (typeof QUIRK_VALUES)[K][number] };
