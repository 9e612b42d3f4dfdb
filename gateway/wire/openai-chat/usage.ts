import { reportedCount, type Usage } from '../../core/usage.js';

export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; audio_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek's OpenAI-compatible API reports its cache hits here instead of prompt_tokens_details. */
  prompt_cache_hit_tokens?: number;
}

/**
 * OpenAI counts cached and audio tokens *inside* prompt_tokens, and reasoning tokens inside
 * completion_tokens. Each is subtracted out once here so that every token lands in exactly one
 * priced bucket (see core/usage.ts).
 */
export function fromOpenAIUsage(u: OpenAIUsage): Usage {
  const prompt = reportedCount(u.prompt_tokens);
  const cached = reportedCount(u.prompt_tokens_details?.cached_tokens, reportedCount(u.prompt_cache_hit_tokens));
  const audio = reportedCount(u.prompt_tokens_details?.audio_tokens);
  return {
    // Negative when the parts exceed the whole: relay/usage.ts then refuses the figures.
    inputTokens: prompt - cached - audio,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: reportedCount(u.completion_tokens),
    reasoningTokens: reportedCount(u.completion_tokens_details?.reasoning_tokens),
    audioInputTokens: audio,
    imageInputTokens: 0,
  };
}
