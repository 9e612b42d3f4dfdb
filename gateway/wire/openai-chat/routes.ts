import type { GatewayError } from '../../core/errors.js';
import { estimatePromptTokensFromBody } from '../../core/estimate.js';
import type { InboundProtocol, RouteContext } from '../../core/inbound.js';
import { sendJson } from '../../core/respond.js';
import { forward } from '../../core/forward.js';
import { countChatUsage } from './count.js';
import { passthroughChat, type ChatBody } from './passthrough.js';
import { encodeError } from './errors.js';
import { ChatRequest } from './schema.js';
import { makeCodec } from './client-codec.js';
import { decodeRequest } from './decode.js';
import type { CanonicalRequest } from '../../core/canonical.js';
import { runModelRequest } from '../../core/route-model.js';

/** A failure after a stream has started: OpenAI sends a `data: {"error":…}` chunk, which the SDKs raise. */
function encodeStreamError(err: GatewayError): string {
  return `data: ${JSON.stringify(encodeError(err).body)}\n\n`;
}

async function chatCompletions(ctx: RouteContext): Promise<void> {
  const body = ctx.body as ChatBody & ChatRequest;
  const ex = ctx.exchange;
  ex.model = body.model;
  ex.stream = body.stream === true;
  // Decoded up front so a body no protocol can carry is a 400 before any money is held.
  let decoded: CanonicalRequest | undefined;
  const decode = (): CanonicalRequest => (decoded ??= decodeRequest(body));
  ctx.gateway.admit(ex, ctx.key, body.model, {
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    estimatedInputTokens: estimatePromptTokensFromBody(ctx.rawBody),
  });
  await forward(
    ctx,
    (signal) =>
      runModelRequest(
        ctx,
        signal,
        'openai-chat',
        () => passthroughChat({ gateway: ctx.gateway, exchange: ex, body, rawBody: ctx.rawBody, res: ctx.res, signal, encodeStreamError }),
        makeCodec(body.stream_options?.include_usage === true),
        decode,
      ),
    () => countChatUsage(body, ''),
  );
}

async function listModels(ctx: RouteContext): Promise<void> {
  const created = Math.floor(Date.parse('2025-01-01T00:00:00Z') / 1000);
  const data = ctx.gateway.modelsForKey(ctx.key).map((m) => ({ id: m.id, object: 'model', created, owned_by: m.vendor }));
  sendJson(ctx.res, 200, { object: 'list', data });
}

async function getModel(ctx: RouteContext): Promise<void> {
  const id = ctx.params.model ?? '';
  const m = ctx.gateway.modelsForKey(ctx.key).find((x) => x.id === id);
  if (!m) ctx.gateway.resolveModel(id, ctx.key); // throws the right 404
  sendJson(ctx.res, 200, { id, object: 'model', created: Math.floor(Date.parse('2025-01-01T00:00:00Z') / 1000), owned_by: m?.vendor });
}

export const openaiChat: InboundProtocol = {
  id: 'openai-chat',
  basePath: '/v1',
  encodeError,
  routes: [
    { method: 'POST', url: '/v1/chat/completions', bodySchema: ChatRequest, handle: chatCompletions },
    { method: 'GET', url: '/v1/models', handle: listModels },
    { method: 'GET', url: '/v1/models/:model', handle: getModel },
  ],
};
