/**
 * Canonical token usage. Every format's upstream side converts its upstream's usage figures into
 * this shape once (wire/<format>/usage.ts), so billing never sees a vendor format.
 *
 * Each token is counted in exactly one bucket, because each bucket has its own price:
 * - OpenAI, Responses and Gemini report cached tokens *inside* the prompt total, so their upstream
 *   sides subtract them to get `inputTokens`.
 * - Anthropic reports `input_tokens` *without* cache reads and cache writes, so nothing is subtracted.
 * Audio and image input are split out only where the upstream reports them apart, since some
 * vendors price them apart; otherwise they stay in `inputTokens`.
 * `reasoningTokens` is informational: it is a part of `outputTokens`, never billed twice.
 */
export interface Usage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  audioInputTokens: number;
  imageInputTokens: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, audioInputTokens: 0, imageInputTokens: 0 };
}

/** The prompt as the upstream bills it: every bucket but the output. */
export function promptTokens(u: Usage): number {
  return u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.audioInputTokens + u.imageInputTokens;
}
