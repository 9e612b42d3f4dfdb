import type { CanonicalRequest } from '../../core/canonical.js';
import { countTokens, estimatePromptTokensFromBody } from '../../core/estimate.js';
import { GatewayError } from '../../core/errors.js';
import { forward } from '../../core/forward.js';
import type { InboundProtocol, RouteContext } from '../../core/inbound.js';
import { runModelRequest } from '../../core/route-model.js';
import { countPromptTokens } from '../../core/token-count.js';
import { emptyUsage, type Usage } from '../../core/usage.js';
import { passthroughResponses } from './passthrough.js';
import { encodeError } from '../openai-chat/errors.js';
import { makeCodec } from './client-codec.js';
import { decodeRequest, inputItems, toolNamespaces } from './decode.js';
import { encodeResponse, type ResponsesBody } from './encode.js';
import { encodeStreamError } from './encode-stream.js';
import { ResponsesRequest } from './schema.js';

/**
 * POST /v1/responses. `previous_response_id` is resolved here from Tollgate's own response store
 * (the stored conversation is put before this request's input), so a chain works whichever
 * upstream serves each turn. A request that neither chains nor asks to be stored (Codex:
 * `store:false`, full history every turn) to a Responses upstream takes the pass-through path.
 */
async function responses(ctx: RouteContext): Promise<void> {
  const body = ctx.body as ResponsesRequest & Record<string, unknown>;
  const ex = ctx.exchange;
  ex.model = body.model;
  ex.stream = body.stream === true;
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  const store = body.store !== false;
  let history: unknown[] = [];
  if (previous !== undefined) {
    const stored = ctx.gateway.responses.get(previous, ctx.key.id);
    if (!stored) {
      throw new GatewayError('invalid_request', `Previous response with id '${previous}' not found.`, { code: 'previous_response_not_found', param: 'previous_response_id' });
    }
    history = stored;
  }
  const items = [...history, ...inputItems(body)];
  const chained = { ...body, input: items };
  let decoded: CanonicalRequest | undefined;
  const decode = (): CanonicalRequest => (decoded ??= decodeRequest(chained));
  const admission = ctx.gateway.admit(ex, ctx.key, body.model, {
    maxOutputTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
    estimatedInputTokens: estimatePromptTokensFromBody(previous === undefined ? ctx.rawBody : JSON.stringify(chained)),
  });
  const keep = (response: Pick<ResponsesBody, 'id' | 'output' | 'status'>): void => {
    if (store && response.status !== 'failed') ctx.gateway.responses.put(response.id, ctx.key.id, [...items, ...response.output]);
  };
  const opts = { namespaces: toolNamespaces(body), store, ...(previous === undefined ? {} : { previousResponseId: previous }), onResponse: keep };
  const streamCodec = makeCodec(opts);
  const codec = {
    ...streamCodec,
    encodeResponse: (res: Parameters<typeof encodeResponse>[0], c: Parameters<typeof encodeResponse>[1]) => {
      const out = encodeResponse(res, c, opts);
      keep(out);
      return out;
    },
  };
  const count = async (produced: string): Promise<Usage> => ({
    ...emptyUsage(),
    inputTokens: ctx.gateway.tokenizerCalibration.apply(admission.model.id, await countPromptTokens(decode())),
    outputTokens: await countTokens(produced),
  });
  const passthroughable = previous === undefined && !store;
  await forward(
    ctx,
    (signal) =>
      runModelRequest(
        ctx,
        signal,
        passthroughable ? 'openai-responses' : 'none',
        () => passthroughResponses({ gateway: ctx.gateway, exchange: ex, body, rawBody: ctx.rawBody, res: ctx.res, signal, count, encodeStreamError: (e) => encodeStreamError(e) }),
        codec,
        decode,
      ),
    () => count(''),
  );
}

export const openaiResponses: InboundProtocol = {
  id: 'openai-responses',
  basePath: '/v1',
  encodeError,
  routes: [{ method: 'POST', url: '/v1/responses', bodySchema: ResponsesRequest, handle: responses }],
};
