/** Small helpers for reading untyped JSON from the wire. */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A cheap shape check for a stream event's JSON, instead of parsing every event on the
 * pass-through path: it catches a truncated or garbled event before the client's SDK chokes.
 */
export function assertJsonObjectShape(data: string): void {
  if (data.charCodeAt(0) !== 123 /* { */ || data.charCodeAt(data.length - 1) !== 125 /* } */) throw new SyntaxError('malformed event');
}
