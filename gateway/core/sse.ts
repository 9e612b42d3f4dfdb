import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { upstreamMalformed } from './errors.js';
import { isObject, type JsonObject } from './json.js';

export interface SseEvent {
  event?: string | undefined;
  data: string;
}

/**
 * The largest event read from an upstream (32 MiB): a whole Responses answer fits in its final
 * event many times over. Without a bound, an upstream that never ends a line would be held in
 * memory whole.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

const NONE: readonly SseEvent[] = Object.freeze([]);

/**
 * Server-Sent Events from a byte stream, fed chunk by chunk and read synchronously: the events each
 * chunk completes. Bytes are decoded with a streaming TextDecoder, so a multi-byte character split
 * across two network chunks comes out whole. A relay that reads its upstream's chunks itself takes
 * each chunk's events in a plain loop, without an async generator's turn per event (readSse).
 */
export class SseReader {
  private readonly decoder = new TextDecoder();
  private pending: SseEvent[] = [];
  /** What was fed since the last event or comment: the part of the stream the parser holds. */
  private held = 0;
  private readonly parser = createParser({
    onEvent: (e: EventSourceMessage) => {
      this.held = 0;
      this.pending.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data });
    },
    onComment: () => {
      this.held = 0;
    },
  });

  constructor(private readonly maxEventBytes = MAX_EVENT_BYTES) {}

  /** The events `chunk` completes, in order (usually none or one); an upstream error past the size bound. */
  feed(chunk: Uint8Array | string): readonly SseEvent[] {
    this.held += chunk.length;
    if (this.held > this.maxEventBytes)
      throw upstreamMalformed(`the upstream sent a stream event larger than ${this.maxEventBytes / 1024 / 1024} MiB.`);
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    return this.take();
  }

  /**
   * The stream ended: the events its last bytes complete. A final event without its blank line is
   * incomplete by the SSE rules; a stream cut there is reported by the caller as a dropped stream,
   * not patched up here.
   */
  end(): readonly SseEvent[] {
    const tail = this.decoder.decode();
    if (tail) this.parser.feed(tail);
    return this.take();
  }

  private take(): readonly SseEvent[] {
    if (this.pending.length === 0) return NONE;
    const ready = this.pending;
    this.pending = [];
    return ready;
  }
}

/** Parses a byte stream as Server-Sent Events (SseReader), one event at a time. */
export async function* readSse(
  body: AsyncIterable<Uint8Array | string>,
  maxEventBytes = MAX_EVENT_BYTES,
): AsyncGenerator<SseEvent> {
  const reader = new SseReader(maxEventBytes);
  // A loop of yields, not `yield*` over the array: in an async generator that wraps the array in an async iterator
  // of its own, a few more promises per event.
  for await (const chunk of body) {
    const ready = reader.feed(chunk);
    for (let i = 0; i < ready.length; i++) yield ready[i]!;
  }
  const rest = reader.end();
  for (let i = 0; i < rest.length; i++) yield rest[i]!;
}

/** Writes one event in SSE framing. Multi-line data becomes several `data:` lines. */
export function formatSse(e: SseEvent): string {
  // SSE ends a line at CR, LF or CRLF; each line of the data becomes its own data: field.
  const data = /[\r\n]/.test(e.data) ? e.data.split(/\r\n|\r|\n/).join('\ndata: ') : e.data;
  return e.event === undefined ? `data: ${data}\n\n` : `event: ${e.event}\ndata: ${data}\n\n`;
}

/** The JSON object an upstream's stream event carries; an upstream error when it is not one (a truncated or garbled event). */
export function eventObject(e: SseEvent): JsonObject {
  let data: unknown;
  try {
    data = JSON.parse(e.data);
  } catch {
    throw upstreamMalformed(
      `the upstream sent a stream event that is not valid JSON${e.event === undefined ? '' : ` (${e.event})`}.`,
    );
  }
  if (!isObject(data)) throw upstreamMalformed('the upstream sent a stream event that is not a JSON object.');
  return data;
}
