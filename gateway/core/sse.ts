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

/**
 * Parses a byte stream as Server-Sent Events. Bytes are decoded with a streaming TextDecoder, so
 * a multi-byte character split across two network chunks comes out whole.
 */
export async function* readSse(
  body: AsyncIterable<Uint8Array | string>,
  maxEventBytes = MAX_EVENT_BYTES,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let pending: SseEvent[] = [];
  // What was fed since the last event or comment: the part of the stream the parser holds.
  let held = 0;
  const parser = createParser({
    onEvent(e: EventSourceMessage) {
      held = 0;
      pending.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data });
    },
    onComment() {
      held = 0;
    },
  });
  for await (const chunk of body) {
    held += chunk.length;
    if (held > maxEventBytes)
      throw upstreamMalformed(`the upstream sent a stream event larger than ${maxEventBytes / 1024 / 1024} MiB.`);
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const ready = pending;
      pending = [];
      yield* ready;
    }
  }
  const tail = decoder.decode();
  if (tail) parser.feed(tail);
  // A final event without its blank line is incomplete by the SSE rules; a stream cut there is
  // reported by the caller as a dropped stream, not patched up here.
  yield* pending;
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
