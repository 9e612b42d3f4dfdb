import type { ClientRequest, FormatRoute, LocalContext, ModelCall } from '../../core/format.js';
import { makeCodec } from './client-codec.js';
import { decodeRequest } from './decode.js';
import { encodeStreamError } from './errors.js';
import { chatPassthrough, type ChatBody } from './passthrough.js';
import { ChatRequest } from './schema.js';

function chatCompletions(req: ClientRequest): ModelCall {
  const body = req.body as ChatBody & ChatRequest;
  return {
    model: body.model,
    stream: body.stream === true,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    decode: () => decodeRequest(body),
    encoder: makeCodec(body.stream_options?.include_usage === true),
    encodeStreamError,
    passthrough: chatPassthrough(body, req.rawBody),
  };
}

const CREATED = Math.floor(Date.parse('2025-01-01T00:00:00Z') / 1000);

async function listModels(_req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  return {
    object: 'list',
    data: ctx.models().map((m) => ({ id: m.id, object: 'model', created: CREATED, owned_by: m.vendor })),
  };
}

async function getModel(req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  const id = req.params.model ?? '';
  const m = ctx.models().find((x) => x.id === id);
  if (!m) ctx.model(id); // throws the right 404
  return { id, object: 'model', created: CREATED, owned_by: m?.vendor };
}

export const routes: FormatRoute[] = [
  { method: 'POST', url: '/v1/chat/completions', bodySchema: ChatRequest, model: chatCompletions },
  { method: 'GET', url: '/v1/models', local: listModels },
  { method: 'GET', url: '/v1/models/:model', local: getModel },
];
