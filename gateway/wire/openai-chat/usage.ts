import type { Usage } from '../../core/usage.js';

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
  const prompt = u.prompt_tokens ?? 0;
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? 0;
  const audio = u.prompt_tokens_details?.audio_tokens ?? 0;
  return {
    inputTokens: Math.max(0, prompt - cached - audio),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: u.completion_tokens ?? 0,
    reasoningTokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
    audioInputTokens: audio,
    imageInputTokens: 0,
  };
}
