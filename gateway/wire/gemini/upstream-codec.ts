import type { ProviderCodec } from '../../core/codec.js';
import { fromError } from './from-error.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { toRequest } from './to-request.js';
import { fromGeminiUsage } from './usage.js';

/**
 * Google's Gemini API (Generative Language, v1beta; the line's base URL is the origin). The
 * credential goes in `x-goog-api-key`, added by the caller like every provider's.
 */
export const geminiProvider: ProviderCodec = { id: 'gemini', family: 'gemini', toRequest, fromResponse, fromStream, usage: fromGeminiUsage, fromError };
