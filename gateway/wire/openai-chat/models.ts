/**
 * OpenAI's model list, `GET {base}/models` → `{data:[{id}]}`; the Responses format shares it.
 * OpenAI-compatible servers add their own fields to each entry. OpenRouter's are read: `name`,
 * `context_length`, `top_provider.max_completion_tokens` and `pricing` (USD per token, as decimal
 * strings: `prompt`, `completion`, `input_cache_read`, `input_cache_write`; "-1" marks a price that
 * varies by request, as on its auto router, and is left out).
 */
import type { ListedModel } from '../../core/format.js';
import { isObject } from '../../core/json.js';

const PRICE_FIELDS = {
  input: 'prompt',
  output: 'completion',
  cacheRead: 'input_cache_read',
  cacheWrite: 'input_cache_write',
} as const;
const PRICE_TEXT = /^\d+(\.\d+)?([eE][+-]?\d+)?$/;

function tokens(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

function listed(entry: Record<string, unknown>): ListedModel {
  const m: ListedModel = { id: String(entry.id) };
  if (typeof entry.name === 'string' && entry.name.trim() !== '') m.displayName = entry.name;
  const context = tokens(entry.context_length);
  if (context !== undefined) m.contextWindow = context;
  const maxOut = isObject(entry.top_provider) ? tokens(entry.top_provider.max_completion_tokens) : undefined;
  if (maxOut !== undefined) m.maxOutputTokens = maxOut;
  if (isObject(entry.pricing)) {
    const pricing = entry.pricing;
    const perToken: NonNullable<ListedModel['perToken']> = {};
    for (const [kind, field] of Object.entries(PRICE_FIELDS) as [keyof typeof PRICE_FIELDS, string][]) {
      const v = pricing[field];
      if (typeof v === 'string' && PRICE_TEXT.test(v)) perToken[kind] = v;
    }
    if (Object.keys(perToken).length > 0) m.perToken = perToken;
  }
  return m;
}

export const openaiModelList = {
  path: '/models',
  list: (b: unknown): ListedModel[] =>
    (isObject(b) && Array.isArray(b.data) ? b.data : [])
      .filter((e): e is Record<string, unknown> => isObject(e) && e.id != null)
      .map(listed),
};
