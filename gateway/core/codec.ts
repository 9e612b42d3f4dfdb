/**
 * The two translator contracts of a wire format. Its client side decodes a
 * client's request into the canonical model and encodes canonical answers back; its upstream side
 * encodes canonical requests for a line that speaks the format and decodes that upstream's answers.
 * Neither side knows another format: everything passes through the canonical model.
 */
import type { CanonicalRequest, CanonicalResponse, ProviderFamily, StreamEvent } from './canonical.js';
import type { GatewayError } from './errors.js';
import type { Quirks } from './quirks.js';
import type { SseEvent } from './sse.js';
import type { StreamDecoder } from './stream-decoder.js';
import type { Usage } from './usage.js';

export interface EncodeContext {
  /** The model id the client asked for; answers name it, not the upstream's id. */
  requestedModel: string;
  /** Tollgate's request id, usable as a response id where the protocol wants one. */
  requestId: string;
}

/** The answers of a client side: what a translated request needs once it has been decoded. */
export interface ClientEncoder {
  /** Canonical answer → the wire JSON body. */
  encodeResponse(res: CanonicalResponse, ctx: EncodeContext): unknown;
  /**
   * A canonical stream's encoder for one answer, fed one event at a time by the relay, which reads the events itself:
   * the SSE text, event by event, including the protocol's terminator and, on an error event, its in-band error.
   * No async generator sits between the events and the socket (writtenStream gives the generator form, for tests).
   */
  streamWriter(ctx: EncodeContext): StreamWriter;
  /** The Content-Type of what the stream writer writes, when it is not SSE (Gemini without ?alt=sse: one JSON array). */
  streamContentType?: string;
}

/** A client stream's encoder, pushed to: the text of each canonical event, as it comes. */
export interface StreamWriter {
  /** The text one canonical event gives (undefined: none), as one chunk. */
  push(ev: StreamEvent): string | undefined;
  /** Set once the event pushed ended the client's stream (its stop or its error): nothing more is pushed. */
  readonly done: boolean;
  /** The canonical stream ended before its stop or error: the text that tells the client so, if the format has one. */
  end(): string | undefined;
}

/**
 * A writer's encoding as an async generator over the events, as the relay writes it (relay/translate.ts): the chunk of
 * each event, then what `end` says if the events stop short. Each format's encodeStream, which the wire tests read.
 */
export async function* writtenStream(w: StreamWriter, events: AsyncIterable<StreamEvent>): AsyncGenerator<string> {
  for await (const ev of events) {
    const text = w.push(ev);
    if (text !== undefined) yield text;
    if (w.done) return;
  }
  const last = w.end();
  if (last !== undefined) yield last;
}

export interface ClientCodec extends ClientEncoder {
  /** Wire request → canonical. Throws a GatewayError (400) on a body the protocol does not allow. */
  decodeRequest(body: unknown): CanonicalRequest;
}

export interface UpstreamRequest {
  /** Appended to the line's base URL. */
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** What the encoder dropped or changed, for the log. */
  notes?: string[];
  /** Headers for the client's answer that tell it how its request was served (a structured-output fallback). */
  clientHeaders?: Record<string, string>;
}

/**
 * What an upstream side knows of the line a request goes to, besides its quirks. A LineRecord
 * (store/types.ts) is one.
 */
export interface TargetLine {
  /** Reasoning signatures are bound to the line that made them (core/signatures.ts). */
  id: string;
  /** anthropic: the API version the line speaks (`anthropic-version`); absent: the format's default. */
  anthropicVersion?: string;
}

export interface UpstreamCodec {
  family: ProviderFamily;
  /**
   * Canonical → the upstream's wire request (credential headers are added by the caller); quirks
   * and the rest come from the line. Signatures bound to lines are already sorted out by the relay
   * (core/signatures.ts messagesForLine).
   */
  toRequest(req: CanonicalRequest, quirks?: Quirks, line?: TargetLine): UpstreamRequest;
  /** The upstream's wire JSON answer → canonical, with usage normalised (core/usage.ts). */
  fromResponse(body: unknown): CanonicalResponse;
  /**
   * The upstream's SSE events → canonical stream events. `promptUsage` is Tollgate's estimate of
   * the prompt, used for the `start` event when the upstream reports usage only at the end.
   * Throws (or yields an `error` event) when the upstream stream is malformed or reports an error.
   */
  fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncIterable<StreamEvent>;
  /**
   * fromStream's decoding pushed to one event at a time (core/stream-decoder.ts), for a relay that reads the
   * upstream's events itself: fromStream is this decoder in a loop (optional).
   */
  streamDecoder?(promptUsage: Usage): StreamDecoder;
  /** Normalised usage from the upstream's usage object. */
  usage(raw: unknown): Usage;
  /** The upstream's error answer → what the client is told, where the generic reading would mislead. */
  fromError?(status: number, body: unknown, retryAfter: string | undefined): GatewayError;
}

export type { GatewayError };
