/**
 * The two translator contracts (style.md, habit 2). An inbound protocol decodes its wire request
 * into the canonical model and encodes canonical answers back; a provider encodes canonical
 * requests into its upstream's wire format and decodes the upstream's answers. Neither side knows
 * the other's wire format.
 */
import type { CanonicalRequest, CanonicalResponse, ProviderFamily, StreamEvent } from './canonical.js';
import type { GatewayError } from './errors.js';
import type { FormatId } from './formats.js';
import type { Quirks } from './quirks.js';
import type { SseEvent } from './sse.js';
import type { Usage } from './usage.js';

export interface EncodeContext {
  /** The model id the client asked for; answers name it, not the upstream's id. */
  requestedModel: string;
  /** Tollgate's request id, usable as a response id where the protocol wants one. */
  requestId: string;
}

export interface InboundCodec {
  /** Wire request → canonical. Throws a GatewayError (400) on a body the protocol does not allow. */
  decodeRequest(body: unknown): CanonicalRequest;
  /** Canonical answer → the wire JSON body. */
  encodeResponse(res: CanonicalResponse, ctx: EncodeContext): unknown;
  /** Canonical stream → SSE text, event by event, including the protocol's terminator and, on an error event, its in-band error. */
  encodeStream(events: AsyncIterable<StreamEvent>, ctx: EncodeContext): AsyncIterable<string>;
  /** The Content-Type of what encodeStream writes, when it is not SSE (Gemini without ?alt=sse: one JSON array). */
  streamContentType?: string;
}

export interface UpstreamRequest {
  /** Appended to the line's base URL. */
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** What the encoder dropped or changed, for the log. */
  notes?: string[];
}

export interface ProviderCodec {
  id: FormatId;
  family: ProviderFamily;
  /** Canonical → the upstream's wire request (credential headers are added by the caller); quirks come from the line. */
  toRequest(req: CanonicalRequest, quirks?: Quirks): UpstreamRequest;
  /** The upstream's wire JSON answer → canonical, with usage normalised (core/usage.ts). */
  fromResponse(body: unknown): CanonicalResponse;
  /**
   * The upstream's SSE events → canonical stream events. `promptUsage` is Tollgate's estimate of
   * the prompt, used for the `start` event when the upstream reports usage only at the end.
   * Throws (or yields an `error` event) when the upstream stream is malformed or reports an error.
   */
  fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncIterable<StreamEvent>;
  /** Normalised usage from the upstream's usage object. */
  usage(raw: unknown): Usage;
  /** The upstream's error answer → what the client is told, where the generic reading would mislead. */
  fromError?(status: number, body: unknown, retryAfter: string | undefined): GatewayError;
}

export type { GatewayError };
