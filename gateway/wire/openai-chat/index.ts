/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`): the widest-spoken format, by the openai
 * SDKs and most coding tools as clients, and by OpenAI and every OpenAI-compatible server
 * (DeepSeek, Groq, Mistral, OpenRouter, Ollama, LM Studio…) as upstreams.
 */
import type { WireFormat } from '../../core/format.js';
import { encodeError } from './errors.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { routes } from './routes.js';
import { toRequest } from './to-request.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';

/** OpenAI's model list, `{data:[{id}]}` under the /v1 base URL; the Responses format shares it. */
export const openaiModelList = { path: '/models', ids: (b: unknown): string[] => ((b as { data?: { id?: unknown }[] }).data ?? []).map((m) => String(m.id)) };

export const openaiChat = {
  id: 'openai-chat',
  basePath: '/v1',
  routes,
  encodeError,
  upstream: {
    codec: {
      family: 'openai',
      toRequest,
      fromResponse,
      fromStream,
      usage: (raw) => fromOpenAIUsage((raw ?? {}) as OpenAIUsage),
    },
    auth: 'bearer',
    models: openaiModelList,
  },
} satisfies WireFormat;
