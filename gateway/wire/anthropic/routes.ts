import { GatewayError } from '../../core/errors.js';
import type { ClientRequest, FormatRoute, LocalContext, ModelCall } from '../../core/format.js';
import { codec } from './client-codec.js';
import { decodeRequest } from './decode.js';
import { encodeStreamError } from './encode-stream.js';
import { messagesPassthrough } from './passthrough.js';
import { CountTokensRequest, MessagesRequest } from './schema.js';

/** Any date is accepted (SDKs send newer ones than 2023-06-01), but the header must be there. */
function requireVersion(req: ClientRequest): void {
  const v = req.headers['anthropic-version'];
  if (!(Array.isArray(v) ? v[0] : v)) {
    throw new GatewayError(
      'invalid_request',
      'anthropic-version: header is required (for example "anthropic-version: 2023-06-01").',
      { code: 'missing_version' },
    );
  }
}

function messages(req: ClientRequest): ModelCall {
  requireVersion(req);
  const body = req.body as MessagesRequest & Record<string, unknown>;
  return {
    model: body.model,
    stream: body.stream === true,
    maxOutputTokens: body.max_tokens,
    decode: () => decodeRequest(body),
    encoder: codec,
    encodeStreamError,
    passthrough: messagesPassthrough(body, req.rawBody, req.headers),
  };
}

/**
 * Answered locally for every catalogue model: never forwarded, never billed, never a fake zero.
 * There is no public tokenizer for Claude, so the count is o200k's corrected by what upstreams
 * reported (core/calibration.ts).
 */
async function countTokens(req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  requireVersion(req);
  const body = req.body as CountTokensRequest;
  const model = ctx.model(body.model);
  return { input_tokens: await ctx.countPrompt(model.id, decodeRequest(body)) };
}

const CREATED_AT = '2025-01-01T00:00:00Z';

async function listModels(_req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  const data = ctx
    .models()
    .map((m) => ({ type: 'model', id: m.id, display_name: m.displayName, created_at: CREATED_AT }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

async function getModel(req: ClientRequest, ctx: LocalContext): Promise<unknown> {
  const model = ctx.model(req.params.model ?? '');
  return { type: 'model', id: model.id, display_name: model.displayName, created_at: CREATED_AT };
}

/** Anthropic SDKs and Claude Code always send anthropic-version; OpenAI clients never do. */
const isAnthropicClient = (h: Record<string, string | string[] | undefined>): boolean =>
  h['anthropic-version'] !== undefined;

export const routes: FormatRoute[] = [
  { method: 'POST', url: '/v1/messages', bodySchema: MessagesRequest, model: messages },
  { method: 'POST', url: '/v1/messages/count_tokens', bodySchema: CountTokensRequest, local: countTokens },
  { method: 'GET', url: '/v1/models', accepts: isAnthropicClient, local: listModels },
  { method: 'GET', url: '/v1/models/:model', accepts: isAnthropicClient, local: getModel },
];
