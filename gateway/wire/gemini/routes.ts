import { GatewayError } from '../../core/errors.js';
import type { ClientRequest, FormatRoute, LocalAnswer, LocalContext, ModelCall, ModelInfo } from '../../core/format.js';
import { isObject, type JsonObject } from '../../core/json.js';
import { makeCodec } from './client-codec.js';
import { decodeCountTokensRequest, decodeRequest } from './decode.js';
import { encodeStreamError } from './errors.js';
import { geminiPassthrough } from './passthrough.js';

/**
 * The Gemini API: `POST …/models/{model}:{method}` under /v1beta (and /v1, which current
 * @google/genai releases default to). The model and the method share one path segment, so the
 * route takes the rest of the path and splits it at the last colon.
 */
function target(req: ClientRequest): { model: string; method: string } {
  const rest = decodeURIComponent(req.params['*'] ?? '');
  const at = rest.lastIndexOf(':');
  if (at <= 0)
    throw new GatewayError(
      'not_found',
      `Not found: the path needs models/{model}:{method}, e.g. models/gemini-2.5-flash:generateContent.`,
      { code: 'unknown_path' },
    );
  return { model: rest.slice(0, at).replace(/^models\//, ''), method: rest.slice(at + 1) };
}

/** Gemini routes have no body schema (the path decides what the body is): at least it must be an object. */
function body(req: ClientRequest): JsonObject {
  if (!isObject(req.body))
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.', { code: 'invalid_body' });
  return req.body;
}

/** generateContent and streamGenerateContent are model calls; countTokens, on the same path, is answered locally. */
function dispatch(req: ClientRequest): ModelCall | LocalAnswer {
  const { model, method } = target(req);
  if (method === 'generateContent' || method === 'streamGenerateContent')
    return generate(req, model, method === 'streamGenerateContent');
  if (method === 'countTokens') return { local: (ctx) => countTokens(req, ctx, model) };
  throw new GatewayError(
    'not_found',
    `The method "${method}" is not served by Tollgate (generateContent, streamGenerateContent and countTokens are).`,
    { code: 'unknown_method' },
  );
}

function generate(req: ClientRequest, model: string, stream: boolean): ModelCall {
  const request = body(req);
  const sse = req.query.alt === 'sse';
  const config = request.generationConfig as { maxOutputTokens?: unknown } | undefined;
  const call: ModelCall = {
    model,
    stream,
    maxOutputTokens: typeof config?.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined,
    decode: () => decodeRequest(request, model, { stream }),
    decodeFirst: true,
    encoder: makeCodec(model, { stream, sse: !stream || sse }),
    encodeStreamError: (e) => encodeStreamError(e, sse),
  };
  // A stream without ?alt=sse is one JSON array: Tollgate re-encodes it rather than pass SSE through.
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (!stream || sse) call.passthrough = geminiPassthrough(request, req.rawBody, stream);
  return call;
}

/** Answered locally for every catalogue model: never forwarded, never billed. */
async function countTokens(req: ClientRequest, ctx: LocalContext, model: string): Promise<unknown> {
  const served = ctx.model(model);
  return { totalTokens: await ctx.countPrompt(served.id, decodeCountTokensRequest(body(req), model)) };
}

function modelInfo(m: ModelInfo): Record<string, unknown> {
  return {
    name: `models/${m.id}`,
    version: '001',
    displayName: m.displayName,
    description: `${m.displayName} via Tollgate`,
    inputTokenLimit: m.contextWindow,
    outputTokenLimit: m.maxOutputTokens,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
  };
}

async function listModels(_req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  return { models: ctx.models().map(modelInfo) };
}

async function getModel(req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  return modelInfo(ctx.model(decodeURIComponent(req.params['*'] ?? '').replace(/^models\//, '')));
}

export const routes: FormatRoute[] = [
  { method: 'POST', url: '/v1beta/models/*', model: dispatch },
  { method: 'POST', url: '/v1/models/*', model: dispatch },
  { method: 'GET', url: '/v1beta/models', local: listModels },
  { method: 'GET', url: '/v1beta/models/*', local: getModel },
];
