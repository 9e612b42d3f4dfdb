import { reportedCount, type Usage } from '../../core/usage.js';
import { isObject } from '../../core/json.js';

/** A Responses `usage` object (in a response, or in the response of response.completed / .incomplete). */
export interface ResponsesUsage {
  input_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  output_tokens?: number | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
  total_tokens?: number | null;
}

/**
 * Responses counts cached tokens *inside* input_tokens: input_tokens_details.cached_tokens (read
 * from the cache) and cache_write_tokens (written to it, reported by newer API versions) are
 * parts of it (https://platform.openai.com/docs/guides/prompt-caching). Reasoning tokens are
 * inside output_tokens. Both cache parts are subtracted once here so that every token lands in
 * exactly one priced bucket (see core/usage.ts); reasoning stays informational.
 */
export function fromResponsesUsage(raw: unknown): Usage {
  const u = isObject(raw) ? (raw as ResponsesUsage) : {};
  const input = reportedCount(u.input_tokens);
  const cached = reportedCount(u.input_tokens_details?.cached_tokens);
  const written = reportedCount(u.input_tokens_details?.cache_write_tokens);
  return {
    // Negative when the parts exceed the whole: relay/usage.ts then refuses the figures.
    inputTokens: input - cached - written,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    cacheWrite1hTokens: 0,
    outputTokens: reportedCount(u.output_tokens),
    reasoningTokens: reportedCount(u.output_tokens_details?.reasoning_tokens),
    audioInputTokens: 0,
    imageInputTokens: 0,
  };
}
