import { isObject } from '../../core/json.js';
import { reportedCount, type Usage } from '../../core/usage.js';
import type { GeminiUsage } from './types.js';

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

function modality(details: unknown, name: string): number {
  if (!Array.isArray(details)) return 0;
  return details.reduce(
    (n: number, d: unknown) => n + (isObject(d) && d.modality === name ? count(d.tokenCount) : 0),
    0,
  );
}

/**
 * Gemini `usageMetadata` → canonical, each token in exactly one priced bucket (core/usage.ts):
 * - `promptTokenCount` INCLUDES `cachedContentTokenCount` (like OpenAI, unlike Anthropic), so the
 *   cached part is subtracted out of the input.
 * - `candidatesTokenCount` EXCLUDES `thoughtsTokenCount` (unlike OpenAI's completion_tokens), so
 *   output is candidates + thoughts, and the thoughts are the reasoning share of it.
 * - `toolUsePromptTokenCount` (prompts of Google's own tools) is outside promptTokenCount but
 *   billed as input, so it is added in.
 * - Gemini prices audio input apart (and some models image input), and reports prompt tokens per
 *   modality in `promptTokensDetails`; the uncached AUDIO and IMAGE shares go to their own buckets.
 *   Cached tokens are billed as cache reads whatever their modality, hence the cacheTokensDetails
 *   share is taken off first. Video and document tokens stay in inputTokens (priced as text).
 * https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function fromGeminiUsage(raw: GeminiUsage | unknown): Usage {
  const u = isObject(raw) ? raw : {};
  const prompt = reportedCount(u.promptTokenCount);
  const cached = reportedCount(u.cachedContentTokenCount);
  // Negative when the cached part exceeds the prompt: relay/usage.ts then refuses the figures.
  const uncached = prompt - cached;
  const audio = Math.max(0, modality(u.promptTokensDetails, 'AUDIO') - modality(u.cacheTokensDetails, 'AUDIO'));
  const image = Math.max(0, modality(u.promptTokensDetails, 'IMAGE') - modality(u.cacheTokensDetails, 'IMAGE'));
  const thoughts = reportedCount(u.thoughtsTokenCount);
  return {
    inputTokens:
      (uncached < 0 ? uncached : Math.max(0, uncached - audio - image)) + reportedCount(u.toolUsePromptTokenCount),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: reportedCount(u.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
    audioInputTokens: audio,
    imageInputTokens: image,
  };
}

/** Whether a usageMetadata says anything about the prompt (Gemini's interim stream chunks carry only that). */
export function hasPromptCount(raw: unknown): boolean {
  return isObject(raw) && count(raw.promptTokenCount) > 0;
}
