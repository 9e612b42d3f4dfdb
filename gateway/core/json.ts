import { invalidRequest, type GatewayError } from './errors.js';

/** Small helpers for reading untyped JSON from the wire. */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON value read as text: the string itself, '' for anything else. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * A cheap shape check for a stream event's JSON, instead of parsing every event on the
 * pass-through path: it catches a truncated or garbled event before the client's SDK chokes.
 */
export function assertJsonObjectShape(data: string): void {
  if (data.charCodeAt(0) !== 123 /* { */ || data.charCodeAt(data.length - 1) !== 125 /* } */)
    throw new SyntaxError('malformed event');
}

/**
 * Tool-call arguments as OpenAI-style clients send them: a JSON string holding an object. An
 * absent or empty string is `{}`; anything else that is not an object is the client's 400.
 */
export function parseToolArguments(args: unknown, param: string): Record<string, unknown> {
  const invalid = (message: string, code?: string): GatewayError => invalidRequest(message, param, code);
  if (args === undefined || args === null || (typeof args === 'string' && args.trim() === '')) return {};
  if (typeof args !== 'string') throw invalid(`${param} must be a JSON string.`, 'invalid_type');
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw invalid(`${param} is not valid JSON.`);
  }
  if (!isObject(parsed)) throw invalid(`${param} must encode a JSON object.`);
  return parsed;
}
