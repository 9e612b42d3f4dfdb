import type { ProviderCodec } from '../core/codec.js';
import type { FormatId } from '../core/formats.js';
import { anthropicProvider } from './anthropic/upstream-codec.js';
import { geminiProvider } from './gemini/upstream-codec.js';
import { openaiChatProvider } from './openai-chat/upstream-codec.js';
import { openaiResponsesProvider } from './openai-responses/upstream-codec.js';

export interface Provider {
  codec: ProviderCodec;
  /** How the upstream wants the line's credential sent. */
  authHeaders(credential: string): Record<string, string>;
  /** The upstream's model list (free to call): the path after the base URL and how to read the ids. */
  models: { path: string; headers?: Record<string, string>; ids(body: unknown): string[] };
}

const openaiModels = { path: '/models', ids: (b: unknown) => ((b as { data?: { id?: unknown }[] }).data ?? []).map((m) => String(m.id)) };

/** Every upstream protocol with an adapter. Adding one is a folder here and a line below. */
export const PROVIDERS: Partial<Record<FormatId, Provider>> = {
  'openai-chat': { codec: openaiChatProvider, authHeaders: (k) => ({ authorization: `Bearer ${k}` }), models: openaiModels },
  'openai-responses': { codec: openaiResponsesProvider, authHeaders: (k) => ({ authorization: `Bearer ${k}` }), models: openaiModels },
  gemini: {
    codec: geminiProvider,
    authHeaders: (k) => ({ 'x-goog-api-key': k }),
    models: { path: '/v1beta/models?pageSize=1000', ids: (b) => ((b as { models?: { name?: unknown }[] }).models ?? []).map((m) => String(m.name).replace(/^models\//, '')) },
  },
  anthropic: {
    codec: anthropicProvider,
    authHeaders: (k) => ({ 'x-api-key': k }),
    models: { path: '/v1/models?limit=1000', headers: { 'anthropic-version': '2023-06-01' }, ids: openaiModels.ids },
  },
};
