import type { ProviderCodec } from '../../core/codec.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { toRequest } from './to-request.js';
import { fromResponsesUsage } from './usage.js';

/** Canonical ⇄ an OpenAI Responses upstream (`POST {base}/responses`, the base URL including /v1). */
export const openaiResponsesProvider: ProviderCodec = { id: 'openai-responses', family: 'openai', toRequest, fromResponse, fromStream, usage: fromResponsesUsage };
