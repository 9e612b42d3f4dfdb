import type { ClientRequest, FormatRoute, ModelCall, ModelEnv } from '../../core/format.js';
import { GatewayError } from '../../core/errors.js';
import { makeCodec } from './client-codec.js';
import { decodeRequest, inputItems, toolNamespaces } from './decode.js';
import type { ResponsesBody } from './encode.js';
import { encodeStreamError } from './encode-stream.js';
import { responsesPassthrough } from './passthrough.js';
import { ResponsesRequest } from './schema.js';

/**
 * POST /v1/responses. `previous_response_id` is resolved from Tollgate's own store (the stored
 * conversation is put before this request's input), so a chain works whichever upstream serves
 * each turn, and each answer the client asks to be stored is kept there. A request that neither
 * chains nor asks to be stored (Codex: `store:false`, full history every turn) takes the
 * pass-through path to a Responses upstream.
 */
function responses(req: ClientRequest, env: ModelEnv): ModelCall {
  const body = req.body as ResponsesRequest & Record<string, unknown>;
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  const store = body.store !== false;
  let history: unknown[] = [];
  if (previous !== undefined) {
    const stored = env.conversations.get(previous);
    if (!stored) {
      throw new GatewayError('invalid_request', `Previous response with id '${previous}' not found.`, {
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      });
    }
    history = stored;
  }
  const items = [...history, ...inputItems(body)];
  const chained = { ...body, input: items };
  const keep = (response: Pick<ResponsesBody, 'id' | 'output' | 'status'>): void => {
    if (store && response.status !== 'failed') env.conversations.put(response.id, [...items, ...response.output]);
  };
  const opts = {
    namespaces: toolNamespaces(body),
    store,
    ...(previous === undefined ? {} : { previousResponseId: previous }),
    onResponse: keep,
  };
  return {
    model: body.model,
    stream: body.stream === true,
    maxOutputTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
    ...(previous === undefined ? {} : { estimateFrom: JSON.stringify(chained) }),
    decode: () => decodeRequest(chained),
    encoder: makeCodec(opts),
    encodeStreamError: (e) => encodeStreamError(e),
    ...(previous === undefined && !store ? { passthrough: responsesPassthrough(body, req.rawBody) } : {}),
  };
}

export const routes: FormatRoute[] = [
  { method: 'POST', url: '/v1/responses', bodySchema: ResponsesRequest, model: responses },
];
