import { emptyUsage, type Usage } from '../../core/usage.js';
import { isObject } from '../../core/json.js';

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

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
 */
export function mergeAnthropicUsage(base: Usage, raw: unknown): Usage {
  if (!isObject(raw)) return { ...base };
  const details = isObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  return {
    ...base,
    inputTokens: count(raw.input_tokens) ?? base.inputTokens,
    cacheReadTokens: count(raw.cache_read_input_tokens) ?? base.cacheReadTokens,
    cacheWriteTokens: count(raw.cache_creation_input_tokens) ?? base.cacheWriteTokens,
    outputTokens: count(raw.output_tokens) ?? base.outputTokens,
    reasoningTokens: count(details.thinking_tokens) ?? base.reasoningTokens,
  };
}
