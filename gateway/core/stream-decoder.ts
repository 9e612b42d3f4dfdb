/**
 * An upstream stream's decoding, pushed to: the SSE events in, the canonical events out, with no
 * async generator of its own. A line format's `fromStream` is its decoder in a loop (decodedStream);
 * the relay reads the upstream's bytes, their SSE events, the decoding and the signatures' binding
 * in one loop (readDecoded), where these were three async generators and a turn of each per event.
 */
import type { StreamEvent } from './canonical.js';
import { bindEvent } from './signatures.js';
import { SseReader, type SseEvent } from './sse.js';

/** A line format's stream decoder, pushed to one upstream SSE event at a time. */
export interface StreamDecoder {
  /** The canonical events one upstream event gives, in order (often none or one). Throws as fromStream does. */
  push(e: SseEvent): readonly StreamEvent[];
  /** Set once the event pushed ended the canonical stream (its stop or its error): nothing more is pushed. */
  readonly done: boolean;
  /** The upstream's events ran out before `done`: the events that end the stream, or a throw when it was cut short. */
  end(): readonly StreamEvent[];
}

/** A decoder's events, as fromStream yields them: each upstream event's, until the decoder is done or the events end. */
export async function* decodedStream(d: StreamDecoder, events: AsyncIterable<SseEvent>): AsyncGenerator<StreamEvent> {
  for await (const e of events) {
    const out = d.push(e);
    for (let i = 0; i < out.length; i++) yield out[i]!;
    if (d.done) return;
  }
  const last = d.end();
  for (let i = 0; i < last.length; i++) yield last[i]!;
}

/**
 * An upstream's stream body as canonical events with their signatures bound to the line (core/signatures.ts
 * bindEvent): what `bindStream(fromStream(readSse(body)), lineId)` gives, event for event, in one generator.
 */
export async function* readDecoded(
  body: AsyncIterable<Uint8Array | string>,
  d: StreamDecoder,
  lineId: string,
): AsyncGenerator<StreamEvent> {
  const reader = new SseReader();
  for await (const chunk of body) {
    const ready = reader.feed(chunk);
    for (let i = 0; i < ready.length; i++) {
      const out = d.push(ready[i]!);
      for (let j = 0; j < out.length; j++) yield bindEvent(out[j]!, lineId);
      if (d.done) return;
    }
  }
  const rest = reader.end();
  for (let i = 0; i < rest.length; i++) {
    const out = d.push(rest[i]!);
    for (let j = 0; j < out.length; j++) yield bindEvent(out[j]!, lineId);
    if (d.done) return;
  }
  const last = d.end();
  for (let i = 0; i < last.length; i++) yield bindEvent(last[i]!, lineId);
}
