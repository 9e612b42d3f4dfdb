/**
 * Vendor request quirks: flags a preset sets (gateway/presets/<vendor>/preset.json), a line made
 * from it keeps, and the upstream side of a wire format honours. Declared once, with the values each
 * flag may take; the preset loader refuses a flag or value not in this table, since a new quirk
 * needs code in a wire format before a preset can ask for it.
 */
export const QUIRK_VALUES = {
  /** openai-chat: which field carries the output limit (OpenAI's reasoning models refuse `max_tokens`). */
  maxTokensField: ['max_tokens', 'max_completion_tokens'],
  /**
   * openai-chat: the assistant-message field in which the vendor takes its reasoning back
   * (DeepSeek, Kimi: `reasoning_content`, refused with a 400 when missing from a tool-call turn
   * in thinking mode). With it every assistant message carries one, empty where the turn had no
   * reasoning, and thinking "disabled" is sent as `thinking: {type: "disabled"}`. Without it
   * reasoning stays out of the history: strict servers refuse unknown message fields.
   */
  reasoningField: ['reasoning_content'],
  /**
   * anthropic: the upstream has Anthropic's native structured output (`output_config.format`
   * with a JSON Schema). Without it a JSON schema is asked for in the system prompt.
   */
  structuredOutput: ['output_config'],
} as const;

export type Quirks = { -readonly [K in keyof typeof QUIRK_VALUES]?: (typeof QUIRK_VALUES)[K][number] };
