import type { ClientCodec } from '../../core/codec.js';
import { decodeRequest } from './decode.js';
import { encodeResponse } from './encode.js';
import { ChatStreamWriter } from './encode-stream.js';

/**
 * The openai-chat ClientCodec. Whether the stream ends with a usage chunk depends on the request
 * (`stream_options.include_usage`), which ClientCodec.streamWriter does not receive, so the route
 * builds one codec per request.
 */
export function makeCodec(includeUsage: boolean): ClientCodec {
  return {
    decodeRequest,
    encodeResponse,
    streamWriter: (ctx) => new ChatStreamWriter(ctx, { includeUsage }),
  };
}
