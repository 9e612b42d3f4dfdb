/**
 * The contract of a wire format: what one folder under gateway/wire/ exports as one object. Its
 * client side declares the routes clients call and how to read each request; its upstream side
 * holds the codec for lines that speak the format, how they take a credential and how to list
 * their models. The relay (gateway/relay/) does the rest once, for every format: authentication,
 * admission, counting, forwarding with failover, pass-through or translation, settlement and
 * calibration. Nothing here knows Fastify or the gateway's services.
 */
import type { TSchema } from '@sinclair/typebox';
import type { AuthStyle } from './auth.js';
import type { CanonicalRequest } from './canonical.js';
import type { ClientEncoder, UpstreamCodec } from './codec.js';
import type { GatewayError } from './errors.js';
import type { FormatId } from '../contract/formats.js';
import type { Passthrough } from './passthrough.js';

export interface WireFormat {
  id: FormatId;
  /**
   * What clients of this format put after the origin in their base URL: OpenAI-style SDKs take
   * `http://host/v1`, Anthropic and Gemini clients take the origin and add the version themselves.
   */
  basePath: '/v1' | '';
  routes: readonly FormatRoute[];
  /** A GatewayError in the format's own error shape, so its SDKs raise their usual typed error. */
  encodeError(err: GatewayError): EncodedError;
  upstream: UpstreamSide;
}

/** What lines that speak the format need, besides the codec's requests and answers. */
export interface UpstreamSide {
  codec: UpstreamCodec;
  /** How the credential is sent when the line's preset does not say otherwise. */
  auth: AuthStyle;
  /** The upstream's model list (free to call): the path after the base URL and how to read it. */
  models: { path: string; headers?: Record<string, string>; list(body: unknown): ListedModel[] };
}

/** One entry of an upstream's model list, with what the list says of it besides its id. */
export interface ListedModel {
  id: string;
  displayName?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  /**
   * Prices in USD per token, as the list writes them (decimal text), where it gives them: OpenRouter
   * does; a price the list marks as variable or unknown is left out.
   */
  perToken?: { input?: string; output?: string; cacheRead?: string; cacheWrite?: string };
}

export interface EncodedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A client's request as a route reads it: authenticated, its JSON body parsed (and checked against bodySchema). */
export interface ClientRequest {
  body: unknown;
  /** The body exactly as received (for the prompt estimate and pass-through). */
  rawBody: string;
  /** The same body as the bytes received, when the HTTP layer kept them (sent as they are by a pass-through that changes nothing). */
  rawBytes?: Uint8Array | null;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  headers: Record<string, string | string[] | undefined>;
}

interface RouteBase {
  method: 'GET' | 'POST';
  url: string;
  bodySchema?: TSchema;
  /**
   * For a path two formats share (GET /v1/models): whether this format's client sent the
   * request, judged by its headers. The route without `accepts` answers everyone else.
   */
  accepts?(headers: Record<string, string | string[] | undefined>): boolean;
}

/** A route that reaches a model: each request is a model call the relay runs (or, for some, a local answer). */
export interface ModelRoute extends RouteBase {
  /** Reads the request; throws a GatewayError on one the format refuses. */
  model(req: ClientRequest, env: ModelEnv): ModelCall | LocalAnswer;
}

/** A route Tollgate answers itself (model lists, token counts): never forwarded, no ledger row. */
export interface LocalRoute extends RouteBase {
  /** The JSON body of the 200 answer. */
  local(req: ClientRequest, ctx: LocalContext): Promise<unknown>;
}

export type FormatRoute = ModelRoute | LocalRoute;

/** A request on a model route that turns out to be answered locally (Gemini's countTokens shares the model path). */
export interface LocalAnswer {
  local(ctx: LocalContext): Promise<unknown>;
}

/** One model request, as its format reads it. The relay calls the functions only when it needs them. */
export interface ModelCall {
  /** The model id the client asked for. */
  model: string;
  stream: boolean;
  /** The client's output limit, if it set one: it bounds the money reserved. */
  maxOutputTokens: number | undefined;
  /** The text the prompt estimate is made from, when it is not the raw body (a Responses chain adds stored history). */
  estimateFrom?: string;
  /** Client wire → canonical, for translation and for counting; the relay calls it at most once. */
  decode(): CanonicalRequest;
  /** Decode before admission, so a body no format could carry is a 400 before money is held (for formats without a body schema). */
  decodeFirst?: boolean;
  /** Canonical answers → the client's wire, for a request translated to another format. */
  encoder: ClientEncoder;
  /** An in-band error in the client's format, ending a pass-through stream that has already started. */
  encodeStreamError(err: GatewayError): string;
  /** How to pass the request through to a line of the same format; absent when it must be translated even then. */
  passthrough?: Passthrough;
  /**
   * The request exists only in the client's format (an endpoint the other formats lack, such as
   * Responses' compaction): only the lines of that format are tried, and a model served by none
   * is refused (400) in the client's shape. `endpoint` names it in that refusal.
   */
  passthroughOnly?: { endpoint: string };
}

/** What a catalogue model shows in a client's model list. */
export interface ModelInfo {
  id: string;
  vendor: string;
  displayName: string;
  contextWindow: number;
  maxOutputTokens: number;
}

/** What a local answer may ask of the gateway, for the requesting key. */
export interface LocalContext {
  /** The catalogue models the key may use. */
  models(): ModelInfo[];
  /** The model a requested id stands for (aliases applied), or a 404 GatewayError. */
  model(id: string): ModelInfo;
  /** Tokens of a canonical prompt in the model's own tokens (calibrated). */
  countPrompt(modelId: string, req: CanonicalRequest): Promise<number>;
}

/** What reading a model request may ask of the gateway, for the requesting key. */
export interface ModelEnv {
  /** Stored conversations (Responses' `previous_response_id`), the key's own only. */
  conversations: {
    get(id: string): unknown[] | undefined;
    put(id: string, items: unknown[]): void;
  };
}

/** 5xx that a retry cannot fix: configuration problems the user must solve, and a gateway the user paused. */
const NOT_RETRYABLE = new Set([
  'no_line_for_model',
  'line_credential_missing',
  'upstream_auth_failed',
  'gateway_paused',
]);

/** Headers every error answer carries, whatever its format: retry hints the official SDKs read. */
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
