import {
  BILLED_BUCKETS,
  BUCKET_KEYS,
  bucketCounts,
  USAGE_BUCKETS,
  type BucketCounts,
  type BucketKey,
} from '../contract/usage-buckets.js';

/**
 * Canonical token usage: one figure per bucket of the bucket table (contract/usage-buckets.ts).
 * Every format's upstream side converts its upstream's usage figures into this shape once
 * (wire/<format>/usage.ts), so billing never sees a vendor format.
 *
 * Each token is counted in exactly one bucket, because each bucket has its own price:
 * - OpenAI, Responses and Gemini report cached tokens *inside* the prompt total, so their upstream
 *   sides subtract them to get `inputTokens`.
 * - Anthropic reports `input_tokens` *without* cache reads and cache writes, so nothing is subtracted.
 * - Cache writes come in two kinds, priced apart: `cacheWriteTokens` are writes kept 5 minutes
 *   (and every write an upstream does not qualify), `cacheWrite1hTokens` writes kept an hour
 *   (Anthropic reports them in `cache_creation.ephemeral_1h_input_tokens` and prices them higher).
 * Audio and image input are split out only where the upstream reports them apart, since some
 * vendors price them apart; otherwise they stay in `inputTokens`.
 * `reasoningTokens` is informational: it is a part of `outputTokens`, never billed twice.
 *
 * The converters carry an upstream's figures over as they came, even when they make no sense
 * (negative, fractional, absurdly large): `usageProblem` judges them once, in the relay
 * (relay/usage.ts), before anything is billed.
 */
export type Usage = BucketCounts;

/** The buckets in bill order: what `usageProblem` checks, in this order. */
export const USAGE_KEYS: readonly BucketKey[] = BUCKET_KEYS;

const PROMPT_BUCKETS = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family !== 'output');
const CACHE_WRITE_BUCKETS = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family === 'cacheWrite');
const OUTPUT_BUCKETS = BUCKET_KEYS.filter((k) => USAGE_BUCKETS[k].family === 'output');

const EMPTY: Usage = bucketCounts(() => 0);

export function emptyUsage(): Usage {
  return { ...EMPTY };
}

function sum(u: Usage, keys: readonly BucketKey[]): number {
  let n = 0;
  for (const k of keys) n += u[k];
  return n;
}

/** Every cache write, whatever its lifetime: what formats without the split report as one figure. */
export function cacheWriteTokens(u: Usage): number {
  return sum(u, CACHE_WRITE_BUCKETS);
}

/** The prompt as the upstream bills it: every bucket but the output. */
export function promptTokens(u: Usage): number {
  return sum(u, PROMPT_BUCKETS);
}

/** Only the prompt side of a usage: what an upstream reported before its answer was complete. */
export function promptSide(u: Usage): Usage {
  const prompt = { ...u };
  for (const k of OUTPUT_BUCKETS) prompt[k] = 0;
  return prompt;
}

/**
 * A token figure as an upstream sent it: absent (missing or null) is `fallback`, a number is
 * kept as it is (usageProblem judges it), anything else (a string, an object) is NaN, which
 * usageProblem refuses.
 */
export function reportedCount(v: unknown, fallback = 0): number {
  if (v === undefined || v === null) return fallback;
  return typeof v === 'number' ? v : Number.NaN;
}

/**
 * Tokens no usage report may exceed when the catalogue does not know the model's limits: far
 * beyond any model's context, far below where integer arithmetic on prices gets near 2^53.
 */
export const USAGE_CEILING_TOKENS = 10_000_000;

/**
 * The most tokens one request's usage may add up to: four times the model's context window plus
 * its output limit (the catalogue may trail a vendor's larger context: betas, new snapshots),
 * or the fixed ceiling when the catalogue has no figures. This bound only has to catch nonsense;
 * what a plausible figure may cost is bounded by the reservation (billing/billing.ts).
 */
export function maxUsageTokens(model: { contextWindow: number; maxOutputTokens: number }): number {
  const known = model.contextWindow > 0 ? 4 * (model.contextWindow + Math.max(0, model.maxOutputTokens)) : 0;
  return known > 0 ? Math.min(known, USAGE_CEILING_TOKENS) : USAGE_CEILING_TOKENS;
}

/**
 * Why a usage cannot be billed as it is, or undefined when it can: every figure must be a
 * non-negative whole number, and all of them together at most `maxTokens`.
 */
export function usageProblem(u: Usage, maxTokens: number): string | undefined {
  for (const k of USAGE_KEYS) {
    const v: unknown = u[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      return `${k} is ${describe(v)}, not a whole number of tokens`;
  }
  const total = sum(u, BILLED_BUCKETS);
  if (total > maxTokens)
    return `${total} tokens in all is more than the model can read and write (at most ${maxTokens})`;
  return undefined;
}

function describe(v: unknown): string {
  if (typeof v === 'number') return String(v);
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
