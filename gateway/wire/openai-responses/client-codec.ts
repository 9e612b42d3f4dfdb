import type { ClientCodec } from '../../core/codec.js';
import { decodeRequest } from './decode.js';
import { encodeResponse, type ResponsesEncodeOptions } from './encode.js';
import { encodeStream } from './encode-stream.js';

/** OpenAI Responses as the client's wire format (Codex CLI, the openai SDK's `responses`), with default echo fields. */
export const codec: ClientCodec = {
  decodeRequest,
  encodeResponse: (res, ctx) => encodeResponse(res, ctx),
  encodeStream: (events, ctx) => encodeStream(events, ctx),
};

/**
 * A codec for one request, when the route knows more than ClientCodec passes along: the Codex
 * namespaces to put back on function calls (decode.ts toolNamespaces(body)), the `store` and
 * `previous_response_id` to echo, and a hook that receives the final streamed response for the
 * response store.
 */
export function makeCodec(opts: ResponsesEncodeOptions): ClientCodec {
  return {
    decodeRequest,
    encodeResponse: (res, ctx) => encodeResponse(res, ctx, opts),
    encodeStream: (events, ctx) => encodeStream(events, ctx, opts),
  };
}
