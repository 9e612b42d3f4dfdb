import type { ClientCodec } from '../../core/codec.js';
import { decodeRequest } from './decode.js';
import { encodeResponse, type ResponsesEncodeOptions } from './encode.js';
import { ResponsesStreamWriter } from './encode-stream.js';

/**
 * A codec for one request, when the route knows more than ClientCodec passes along: the Codex
 * namespaces to put back on function calls (decode.ts toolNamespaces(body)), the `store` and
 * `previous_response_id` to echo, and a hook that receives the final response, streamed or not,
 * for the response store.
 */
export function makeCodec(opts: ResponsesEncodeOptions): ClientCodec {
  return {
    decodeRequest,
    encodeResponse: (res, ctx) => {
      const out = encodeResponse(res, ctx, opts);
      opts.onResponse?.(out);
      return out;
    },
    streamWriter: (ctx) => new ResponsesStreamWriter(ctx, opts),
  };
}
