/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`): the widest-spoken format, by the openai
 * SDKs and most coding tools as clients, and by OpenAI and every OpenAI-compatible server
 * (DeepSeek, Groq, Mistral, OpenRouter, Ollama, LM Studio…) as upstreams.
 */
import type { WireFormat } from '../../core/format.js';
import { encodeError } from './errors.js';
import { fromResponse } from './from-response.js';
import { ChatStreamDecoder, fromStream } from './from-stream.js';
import { openaiModelList } from './models.js';
import { routes } from './routes.js';
import { toRequest } from './to-request.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';

export { openaiModelList };

export const openaiChat = {
  id: 'openai-chat',
  basePath: '/v1',
  routes,
  encodeError,
  upstream: {
    codec: {
      family: 'openai-chat',
      toRequest,
      fromResponse,
      fromStream,
      streamDecoder: (promptUsage) => new ChatStreamDecoder(promptUsage),
      usage: (raw) => fromOpenAIUsage((raw ?? {}) as OpenAIUsage),
    },
    auth: 'bearer',
    models: openaiModelList,
  },
} satisfies WireFormat;
