import { cacheWriteTokens, emptyUsage, reportedCount, type Usage } from '../../core/usage.js';
import { isObject } from '../../core/json.js';

/**
 * Anthropic's `input_tokens` counts only the uncached part of the prompt: cache reads and cache
 * writes are reported beside it, never inside it (the whole prompt is input + cache_creation +
 * cache_read; https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance).
 * Canonical usage counts each token in exactly one bucket too, so unlike OpenAI and Gemini nothing
 * is subtracted here. `thinking_tokens` is already inside `output_tokens` (informational only).
 */
export function fromAnthropicUsage(raw: unknown): Usage {
  return mergeAnthropicUsage(emptyUsage(), raw);
}

/**
 * Overlays the figures a usage object carries on `base`. Streaming `message_delta` usage holds
 * cumulative totals (not increments), and may omit the input side, so fields it carries replace
 * the earlier value and fields it lacks keep it; nothing is ever added up.
 *
 * `cache_creation_input_tokens` is every cache write; `cache_creation` splits it by lifetime
 * (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`), and only message_start and whole
 * answers carry the split: a later total keeps the 1-hour share already known. The 1-hour writes
 * go to their own bucket (priced at twice the input price, against 1.25× for 5 minutes).
 */
export function mergeAnthropicUsage(base: Usage, raw: unknown): Usage {
  if (!isObject(raw)) return { ...base };
  const details = isObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const split = isObject(raw.cache_creation) ? raw.cache_creation : undefined;
  const oneHour = split
    ? reportedCount(split.ephemeral_1h_input_tokens, base.cacheWrite1hTokens)
    : base.cacheWrite1hTokens;
  const splitTotal = split ? reportedCount(split.ephemeral_5m_input_tokens) + oneHour : cacheWriteTokens(base);
  const writes = reportedCount(raw.cache_creation_input_tokens, splitTotal);
  return {
    ...base,
    inputTokens: reportedCount(raw.input_tokens, base.inputTokens),
    cacheReadTokens: reportedCount(raw.cache_read_input_tokens, base.cacheReadTokens),
    // Negative when the 1-hour share exceeds the total: relay/usage.ts then refuses the figures.
    cacheWriteTokens: writes - oneHour,
    cacheWrite1hTokens: oneHour,
    outputTokens: reportedCount(raw.output_tokens, base.outputTokens),
    reasoningTokens: reportedCount(details.thinking_tokens, base.reasoningTokens),
  };
}
