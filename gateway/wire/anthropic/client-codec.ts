import type { ClientCodec } from '../../core/codec.js';
import { decodeRequest } from './decode.js';
import { encodeResponse } from './encode.js';
import { AnthropicStreamWriter } from './encode-stream.js';

/** Anthropic Messages as the client's wire format (Claude Code, @anthropic-ai/sdk). */
export const codec: ClientCodec = {
  decodeRequest,
  encodeResponse,
  streamWriter: (ctx) => new AnthropicStreamWriter(ctx),
};
