import type { ServerResponse } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import type { Gateway } from '../services.js';
import type { KeyRecord } from '../store/types.js';
import type { GatewayError } from './errors.js';
import type { Exchange } from './exchange.js';
import type { FormatId } from './formats.js';

/** What a handler gets: the request already authenticated and its body validated. */
export interface RouteContext {
  gateway: Gateway;
  exchange: Exchange;
  key: KeyRecord;
  body: unknown;
  /** The request body exactly as received (for estimates and pass-through). */
  rawBody: string;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  headers: Record<string, string | string[] | undefined>;
  res: ServerResponse;
}

export interface ProtocolRoute {
  method: 'GET' | 'POST';
  url: string;
  bodySchema?: TSchema;
  /**
   * For a path two protocols share (GET /v1/models): whether this protocol's client sent the
   * request, judged by its headers. The route without `accepts` answers everyone else.
   */
  accepts?(headers: Record<string, string | string[] | undefined>): boolean;
  /** False for POST routes that are not model requests (count_tokens): no ledger row. */
  billable?: boolean;
  /** Writes the whole response to ctx.res, or throws a GatewayError before writing anything. */
  handle(ctx: RouteContext): Promise<void>;
}

export interface EncodedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** An inbound wire format: its routes and its error shape. One folder under protocols/ each. */
export interface InboundProtocol {
  id: FormatId;
  /**
   * What clients of this protocol put after the origin in their base URL: OpenAI-style SDKs take
   * `http://host/v1`, Anthropic and Gemini clients take the origin and add the version themselves.
   */
  basePath: '/v1' | '';
  routes: ProtocolRoute[];
  encodeError(err: GatewayError): EncodedError;
}

/** 5xx that a retry cannot fix: configuration problems the user must solve. */
const NOT_RETRYABLE = new Set(['no_line_for_model', 'line_credential_missing', 'upstream_auth_failed']);

/** Headers every error response carries: retry hints the official SDKs read. */
export function retryHeaders(err: GatewayError): Record<string, string> {
  const h: Record<string, string> = {};
  if (err.retryAfter !== undefined) {
    h['retry-after'] = String(err.retryAfter);
    h['retry-after-ms'] = String(err.retryAfter * 1000);
  }
  // Stainless SDKs do not retry 4xx other than 408/409/429; say so explicitly for money errors.
  if (err.status === 402 || NOT_RETRYABLE.has(err.code)) h['x-should-retry'] = 'false';
  return h;
}
