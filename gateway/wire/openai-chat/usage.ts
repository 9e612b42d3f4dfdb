import type { Usage } from '../../core/usage.js';

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

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * OpenAI counts cached and audio tokens *inside* prompt_tokens, and reasoning tokens inside
 * completion_tokens. Cache writes, where a server reports them (prompt_tokens_details.
 * cache_write_tokens, as in the Responses usage; cache_creation_input_tokens from servers in front
 * of Anthropic), are inside prompt_tokens too. Each is subtracted out once here so that every
 * token lands in exactly one priced bucket (see core/usage.ts).
 */
export function fromOpenAIUsage(u: OpenAIUsage): Usage {
  const prompt = count(u.prompt_tokens);
  const cached = count(u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens);
  const audio = count(u.prompt_tokens_details?.audio_tokens);
  const written = Math.min(Math.max(0, prompt - cached - audio), count(u.prompt_tokens_details?.cache_write_tokens ?? u.cache_creation_input_tokens));
  return {
    inputTokens: Math.max(0, prompt - cached - audio - written),
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    outputTokens: count(u.completion_tokens),
    reasoningTokens: count(u.completion_tokens_details?.reasoning_tokens),
    audioInputTokens: audio,
    imageInputTokens: 0,
  };
}
