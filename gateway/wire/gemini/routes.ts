import type { CanonicalRequest } from '../../core/canonical.js';
import { countTokens, estimatePromptTokensFromBody } from '../../core/estimate.js';
import { GatewayError } from '../../core/errors.js';
import { forward } from '../../core/forward.js';
import type { InboundProtocol, ProtocolRoute, RouteContext } from '../../core/inbound.js';
import { sendJson } from '../../core/respond.js';
import { runModelRequest } from '../../core/route-model.js';
import { countPromptTokens } from '../../core/token-count.js';
import { emptyUsage, type Usage } from '../../core/usage.js';
import { passthroughGemini } from './passthrough.js';
import type { Gateway } from '../../services.js';
import type { KeyRecord } from '../../store/types.js';
import { makeCodec } from './client-codec.js';
import { decodeCountTokensRequest, decodeRequest } from './decode.js';
import { errorBody, encodeError } from './errors.js';

/**
 * The Gemini API: `POST …/models/{model}:{method}` under /v1beta (and /v1, which current
 * @google/genai releases default to). The model and the method share one path segment, so the
 * route takes the rest of the path and splits it at the last colon.
 */
function target(ctx: RouteContext): { model: string; method: string } {
  const rest = decodeURIComponent(ctx.params['*'] ?? '');
  const at = rest.lastIndexOf(':');
  if (at <= 0) throw new GatewayError('not_found', `Not found: the path needs models/{model}:{method}, e.g. models/gemini-2.5-flash:generateContent.`, { code: 'unknown_path' });
  return { model: rest.slice(0, at).replace(/^models\//, ''), method: rest.slice(at + 1) };
}

async function dispatch(ctx: RouteContext): Promise<void> {
  const { model, method } = target(ctx);
  if (method === 'generateContent' || method === 'streamGenerateContent') return generate(ctx, model, method === 'streamGenerateContent');
  if (method === 'countTokens') return countTokensRoute(ctx, model);
  throw new GatewayError('not_found', `The method "${method}" is not served by Tollgate (generateContent, streamGenerateContent and countTokens are).`, { code: 'unknown_method' });
}

function body(ctx: RouteContext): Record<string, unknown> {
  const b = ctx.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new GatewayError('invalid_request', 'The request body must be a JSON object.', { code: 'invalid_body' });
  return b as Record<string, unknown>;
}

async function generate(ctx: RouteContext, model: string, stream: boolean): Promise<void> {
  const request = body(ctx);
  const ex = ctx.exchange;
  ex.model = model;
  ex.stream = stream;
  const sse = ctx.query.alt === 'sse';
  let decoded: CanonicalRequest | undefined;
  const decode = (): CanonicalRequest => (decoded ??= decodeRequest(request, model, { stream }));
  decode(); // a body no protocol can carry is a 400 before money is held
  const config = request.generationConfig as { maxOutputTokens?: unknown } | undefined;
  const admission = ctx.gateway.admit(ex, ctx.key, model, {
    maxOutputTokens: typeof config?.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined,
    estimatedInputTokens: estimatePromptTokensFromBody(ctx.rawBody),
  });
  const count = async (produced: string): Promise<Usage> => ({
    ...emptyUsage(),
    inputTokens: ctx.gateway.tokenizerCalibration.apply(admission.model.id, await countPromptTokens(decode())),
    outputTokens: await countTokens(produced),
  });
  const encodeStreamError = (e: GatewayError): string => (sse ? `data: ${JSON.stringify(errorBody(e))}\n\n` : JSON.stringify(errorBody(e)));
  await forward(
    ctx,
    (signal) =>
      runModelRequest(
        ctx,
        signal,
        // A stream without ?alt=sse is one JSON array: Tollgate re-encodes it rather than pass SSE through.
        stream && !sse ? 'none' : 'gemini',
        () => passthroughGemini({ gateway: ctx.gateway, exchange: ex, rawBody: ctx.rawBody, stream, res: ctx.res, signal, count, encodeStreamError }),
        makeCodec(model, { stream, sse: !stream || sse }),
        decode,
      ),
    () => count(''),
  );
}

/** Answered locally for every catalogue model: never forwarded, never billed. */
async function countTokensRoute(ctx: RouteContext, model: string): Promise<void> {
  ctx.exchange.billable = false;
  const { model: served } = ctx.gateway.resolveModel(model, ctx.key);
  const tokens = ctx.gateway.tokenizerCalibration.apply(served.id, await countPromptTokens(decodeCountTokensRequest(body(ctx), model)));
  sendJson(ctx.res, 200, { totalTokens: tokens });
}

function modelInfo(g: Gateway, key: KeyRecord, id: string): Record<string, unknown> {
  const m = g.resolveModel(id, key).model;
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

async function listModels(ctx: RouteContext): Promise<void> {
  sendJson(ctx.res, 200, { models: ctx.gateway.modelsForKey(ctx.key).map((m) => modelInfo(ctx.gateway, ctx.key, m.id)) });
}

async function getModel(ctx: RouteContext): Promise<void> {
  sendJson(ctx.res, 200, modelInfo(ctx.gateway, ctx.key, decodeURIComponent(ctx.params['*'] ?? '').replace(/^models\//, '')));
}

/** A countTokens call is free; the other methods are model requests with a ledger row. */
const post = (url: string): ProtocolRoute => ({ method: 'POST', url, handle: dispatch });

export const gemini: InboundProtocol = {
  id: 'gemini',
  basePath: '',
  encodeError,
  routes: [post('/v1beta/models/*'), post('/v1/models/*'), { method: 'GET', url: '/v1beta/models', handle: listModels }, { method: 'GET', url: '/v1beta/models/*', handle: getModel }],
};
