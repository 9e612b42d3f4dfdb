import { reportedCount, type Usage } from '../../core/usage.js';

export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; audio_tokens?: number; cache_write_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek's OpenAI-compatible API reports its cache hits here instead of prompt_tokens_details. */
  prompt_cache_hit_tokens?: number;
  /** What Anthropic-backed compatible servers (LiteLLM and others) report for cache writes. */
  cache_creation_input_tokens?: number;
}

/**
 * OpenAI counts cached and audio tokens *inside* prompt_tokens, and reasoning tokens inside
 * completion_tokens. Cache writes, where a server reports them (prompt_tokens_details.
 * cache_write_tokens, as in the Responses usage; cache_creation_input_tokens from servers in front
 * of Anthropic), are inside prompt_tokens too. Each is subtracted out once here so that every
 * token lands in exactly one priced bucket (see core/usage.ts).
 */
export function fromOpenAIUsage(u: OpenAIUsage): Usage {
  const prompt = reportedCount(u.prompt_tokens);
  const cached = reportedCount(u.prompt_tokens_details?.cached_tokens, reportedCount(u.prompt_cache_hit_tokens));
  const audio = reportedCount(u.prompt_tokens_details?.audio_tokens);
  const written = reportedCount(
    u.prompt_tokens_details?.cache_write_tokens,
    reportedCount(u.cache_creation_input_tokens),
  );
  return {
    // Negative when the parts exceed the whole: relay/usage.ts then refuses the figures.
    inputTokens: prompt - cached - audio - written,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    cacheWrite1hTokens: 0,
    outputTokens: reportedCount(u.completion_tokens),
    reasoningTokens: reportedCount(u.completion_tokens_details?.reasoning_tokens),
    audioInputTokens: audio,
    imageInputTokens: 0,
  };
}
