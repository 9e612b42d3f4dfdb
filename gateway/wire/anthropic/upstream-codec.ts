import type { ProviderCodec } from '../../core/codec.js';
import { fromResponse } from './from-response.js';
import { fromStream } from './from-stream.js';
import { toRequest } from './to-request.js';
import { fromAnthropicUsage } from './usage.js';

/** Anthropic Messages upstreams: api.anthropic.com and Anthropic-compatible vendors (the line's base URL is the origin). */
export const anthropicProvider: ProviderCodec = { id: 'anthropic', family: 'anthropic', toRequest, fromResponse, fromStream, usage: fromAnthropicUsage };
