import type { ClientCodec } from '../../core/codec.js';
import { decodeRequest } from './decode.js';
import { encodeResponse } from './encode.js';
import { GeminiStreamWriter } from './encode-stream.js';

export interface CodecOptions {
  /** The client called `:streamGenerateContent` (Gemini says it in the method, not the body). */
  stream?: boolean;
  /** The client asked for `?alt=sse`; without it a stream is one JSON array. Default true. */
  sse?: boolean;
}

/**
 * The gemini ClientCodec. The model is in the URL path and streaming is in the method, neither in
 * the body that ClientCodec.decodeRequest receives, so the route builds one codec per request.
 */
export function makeCodec(modelFromPath: string, opts: CodecOptions = {}): ClientCodec {
  const sse = opts.sse !== false;
  const codec: ClientCodec = {
    decodeRequest: (body) => decodeRequest(body, modelFromPath, { stream: opts.stream === true }),
    encodeResponse,
    streamWriter: (ctx) => new GeminiStreamWriter(ctx, sse),
  };
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (!sse) codec.streamContentType = 'application/json';
  return codec;
}
