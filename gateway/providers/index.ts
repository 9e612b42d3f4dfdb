import type { ProviderCodec } from '../core/codec.js';
import type { UpstreamProtocolId } from '../core/protocol-ids.js';
import { anthropicProvider } from './anthropic/codec.js';
import { openaiChatProvider } from './openai-chat/codec.js';

export interface Provider {
  codec: ProviderCodec;
  /** How the upstream wants the line's credential sent. */
  authHeaders(credential: string): Record<string, string>;
}

/** Every upstream protocol with an adapter. Adding one is a folder here and a line below. */
export const PROVIDERS: Partial<Record<UpstreamProtocolId, Provider>> = {
  'openai-chat': { codec: openaiChatProvider, authHeaders: (k) => ({ authorization: `Bearer ${k}` }) },
  anthropic: { codec: anthropicProvider, authHeaders: (k) => ({ 'x-api-key': k }) },
};
