import type { CanonicalRequest } from '../../core/canonical.js';
import { countTokens, estimatePromptTokensFromBody, tokenizerLoaded } from '../../core/estimate.js';
import { GatewayError } from '../../core/errors.js';
import { forward } from '../../core/forward.js';
import type { InboundProtocol, RouteContext } from '../../core/inbound.js';
import { sendJson } from '../../core/respond.js';
import { runModelRequest } from '../../core/route-model.js';
import { countPromptTokens } from '../../core/token-count.js';
import { emptyUsage, type Usage } from '../../core/usage.js';
import { passthroughMessages } from './passthrough.js';
import type { Gateway } from '../../services.js';
import { codec } from './client-codec.js';
import { decodeRequest } from './decode.js';
import { encodeStreamError } from './encode-stream.js';
import { encodeError } from './errors.js';
import { CountTokensRequest, MessagesRequest } from './schema.js';

/** Prompts counted with the tokenizer to learn each model's correction, before sampling thins out. */
const CALIBRATION_WARMUP = 5;
const CALIBRATION_EVERY = 10;
const calibrated = new Map<string, number>();

function header(ctx: RouteContext, name: string): string | undefined {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Any date is accepted (SDKs send newer ones than 2023-06-01), but the header must be there. */
function requireVersion(ctx: RouteContext): void {
  if (!header(ctx, 'anthropic-version')) {
    throw new GatewayError('invalid_request', 'anthropic-version: header is required (for example "anthropic-version: 2023-06-01").', { code: 'missing_version' });
  }
}

/** Tokens of a canonical prompt in the model's own tokens: o200k, corrected by calibration. */
async function countPrompt(g: Gateway, model: string, req: CanonicalRequest): Promise<number> {
  return g.tokenizerCalibration.apply(model, await countPromptTokens(req));
}

async function messages(ctx: RouteContext): Promise<void> {
  requireVersion(ctx);
  const body = ctx.body as MessagesRequest & Record<string, unknown>;
  const ex = ctx.exchange;
  ex.model = body.model;
  ex.stream = body.stream === true;
  let decoded: CanonicalRequest | undefined;
  const decode = (): CanonicalRequest => (decoded ??= decodeRequest(body));
  const admission = ctx.gateway.admit(ex, ctx.key, body.model, {
    maxOutputTokens: body.max_tokens,
    estimatedInputTokens: estimatePromptTokensFromBody(ctx.rawBody),
  });
  const count = async (produced: string): Promise<Usage> => ({
    ...emptyUsage(),
    inputTokens: await countPrompt(ctx.gateway, admission.model.id, decode()),
    outputTokens: await countTokens(produced),
  });
  const outcome = await forward(
    ctx,
    (signal) =>
      runModelRequest(
        ctx,
        signal,
        'anthropic',
        () => passthroughMessages({ gateway: ctx.gateway, exchange: ex, body, rawBody: ctx.rawBody, clientHeaders: ctx.headers, res: ctx.res, signal, count, encodeStreamError }),
        codec,
        decode,
      ),
    () => count(''),
  );
  if (outcome.usage && !outcome.usageEstimated) learnTokenizer(ctx.gateway, admission.model.id, decode, outcome.usage);
}

/**
 * count_tokens has no public tokenizer for Claude or Gemini to lean on, so Tollgate counts with
 * o200k and learns the ratio to what upstreams report. Done after the response, on a sample.
 */
function learnTokenizer(g: Gateway, model: string, decode: () => CanonicalRequest, usage: Usage): void {
  // Until count_tokens is used, the tokenizer stays unloaded: no memory or CPU spent on it.
  if (!tokenizerLoaded()) return;
  const n = (calibrated.get(model) ?? 0) + 1;
  calibrated.set(model, n);
  if (n > CALIBRATION_WARMUP && n % CALIBRATION_EVERY !== 0) return;
  const reported = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.audioInputTokens + usage.imageInputTokens;
  setImmediate(() => {
    void countPromptTokens(decode())
      .then((counted) => g.tokenizerCalibration.record(model, counted, reported))
      .catch(() => undefined);
  });
}

/** Answered locally for every catalogue model: never forwarded, never billed, never a fake zero. */
async function countTokensRoute(ctx: RouteContext): Promise<void> {
  requireVersion(ctx);
  const body = ctx.body as CountTokensRequest;
  const { model } = ctx.gateway.resolveModel(body.model, ctx.key);
  const tokens = await countPrompt(ctx.gateway, model.id, decodeRequest(body));
  sendJson(ctx.res, 200, { input_tokens: tokens });
}

const CREATED_AT = '2025-01-01T00:00:00Z';

async function listModels(ctx: RouteContext): Promise<void> {
  const data = ctx.gateway.modelsForKey(ctx.key).map((m) => ({ type: 'model', id: m.id, display_name: m.displayName, created_at: CREATED_AT }));
  sendJson(ctx.res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

async function getModel(ctx: RouteContext): Promise<void> {
  const { model } = ctx.gateway.resolveModel(ctx.params.model ?? '', ctx.key);
  sendJson(ctx.res, 200, { type: 'model', id: model.id, display_name: model.displayName, created_at: CREATED_AT });
}

/** Anthropic SDKs and Claude Code always send anthropic-version; OpenAI clients never do. */
const isAnthropicClient = (h: Record<string, string | string[] | undefined>): boolean => h['anthropic-version'] !== undefined;

export const anthropicMessages: InboundProtocol = {
  id: 'anthropic',
  basePath: '',
  encodeError,
  routes: [
    { method: 'POST', url: '/v1/messages', bodySchema: MessagesRequest, handle: messages },
    { method: 'POST', url: '/v1/messages/count_tokens', bodySchema: CountTokensRequest, billable: false, handle: countTokensRoute },
    { method: 'GET', url: '/v1/models', accepts: isAnthropicClient, handle: listModels },
    { method: 'GET', url: '/v1/models/:model', accepts: isAnthropicClient, handle: getModel },
  ],
};
