/**
 * Anthropic Messages (`POST /v1/messages`): what Claude Code and @anthropic-ai/sdk speak as
 * clients, and api.anthropic.com and Anthropic-compatible vendors as upstreams (the line's base
 * URL is the origin).
 */
import type { WireFormat } from '../../core/format.js';
import { encodeError } from './errors.js';
import { fromResponse } from './from-response.js';
import { AnthropicStreamDecoder, fromStream } from './from-stream.js';
import { routes } from './routes.js';
import { toRequest } from './to-request.js';
import { ANTHROPIC_VERSION } from './versions.js';
import { fromAnthropicUsage } from './usage.js';

export const anthropic = {
  id: 'anthropic',
  basePath: '',
  routes,
  encodeError,
  upstream: {
    codec: {
      family: 'anthropic',
      toRequest,
      fromResponse,
      fromStream,
      streamDecoder: (promptUsage) => new AnthropicStreamDecoder(promptUsage),
      usage: fromAnthropicUsage,
    },
    auth: 'x-api-key',
    models: {
      path: '/v1/models?limit=1000',
      headers: { 'anthropic-version': ANTHROPIC_VERSION },
      list: (b) =>
        ((b as { data?: { id?: unknown; display_name?: unknown }[] }).data ?? []).map((m) => ({
          id: String(m.id),
          ...(typeof m.display_name === 'string' ? { displayName: m.display_name } : {}),
        })),
    },
  },
} satisfies WireFormat;
