import type { ProviderCodec } from '../../core/codec.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { toRequest } from './to-request.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';

/** Canonical ⇄ an OpenAI-compatible Chat Completions upstream. */
export const openaiChatProvider: ProviderCodec = {
  id: 'openai-chat',
  family: 'openai',
  toRequest: (req, quirks) => toRequest(req, quirks ?? {}),
  fromResponse,
  fromStream,
  usage: (raw) => fromOpenAIUsage((raw ?? {}) as OpenAIUsage),
};
