import type { ClientRequest, FormatRoute, ModelCall, ModelEnv } from '../../core/format.js';
import { GatewayError } from '../../core/errors.js';
import { makeCodec } from './client-codec.js';
import { decodeRequest, inputItems, toolNamespaces } from './decode.js';
import type { ResponsesBody, ResponsesEncodeOptions } from './encode.js';
import { encodeStreamError } from './encode-stream.js';
import { responsesPassthrough } from './passthrough.js';
import { ResponsesCompactRequest, ResponsesRequest } from './schema.js';

/** The stored conversation a `previous_response_id` names (the key's own); a 400 when there is none. */
function history(previous: string | undefined, env: ModelEnv): unknown[] {
  if (previous === undefined) return [];
  const stored = env.conversations.get(previous);
  if (stored) return stored;
  throw new GatewayError('invalid_request', `Previous response with id '${previous}' not found.`, {
    code: 'previous_response_not_found',
    param: 'previous_response_id',
  });
}

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
  // The input array itself when nothing comes before it (nothing changes it; a chain is a new array).
  const items = previous === undefined ? inputItems(body) : [...history(previous, env), ...inputItems(body)];
  // A chain is decoded from a copy holding the whole conversation (copied, then the input set on it: a spread
  // followed by properties is V8's slow path in Node 20); without one, from the body itself, whose input reads as
  // `items` (inputItems).
  let chained: Record<string, unknown> = body;
  if (previous !== undefined) {
    chained = { ...body };
    chained.input = items;
  }
  const keep = (response: Pick<ResponsesBody, 'id' | 'output' | 'status'>): void => {
    if (store && response.status !== 'failed') env.conversations.put(response.id, [...items, ...response.output]);
  };
  const opts: ResponsesEncodeOptions = { namespaces: toolNamespaces(body), store, onResponse: keep };
  if (previous !== undefined) opts.previousResponseId = previous;
  const call: ModelCall = {
    model: body.model,
    stream: body.stream === true,
    maxOutputTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
    decode: () => decodeRequest(chained),
    encoder: makeCodec(opts),
    encodeStreamError: (e) => encodeStreamError(e),
  };
  if (previous !== undefined) call.estimateFrom = JSON.stringify(chained);
  else if (!store) call.passthrough = responsesPassthrough(body, req.rawBody);
  return call;
}

/**
 * POST /v1/responses/compact (docs/protocols.md §3.1): OpenAI compacts a conversation into user
 * messages and one encrypted compaction item, which only an OpenAI Responses upstream can make
 * or read. So it passes through to Responses lines alone (a model served by none is a 400 in
 * OpenAI's shape), and is billed as a call of the model from the usage the upstream reports. A
 * `previous_response_id` is Tollgate's own: the stored conversation goes up as input instead.
 */
function compact(req: ClientRequest, env: ModelEnv): ModelCall {
  const body = req.body as ResponsesCompactRequest & Record<string, unknown>;
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  let sent: Record<string, unknown> = body;
  let raw = req.rawBody;
  if (previous !== undefined) {
    const { previous_response_id: _resolved, ...rest } = body;
    sent = { ...rest, input: [...history(previous, env), ...inputItems(body)] };
    raw = JSON.stringify(sent);
  }
  return {
    model: body.model,
    stream: false,
    maxOutputTokens: undefined,
    ...(previous === undefined ? {} : { estimateFrom: raw }),
    // For counting the prompt only: the request never goes anywhere but a Responses line.
    decode: () => decodeRequest(sent),
    encoder: makeCodec({}),
    encodeStreamError: (e) => encodeStreamError(e),
    passthrough: responsesPassthrough(sent, raw, { compact: true }),
    passthroughOnly: { endpoint: 'POST /v1/responses/compact' },
  };
}

export const routes: FormatRoute[] = [
  { method: 'POST', url: '/v1/responses', bodySchema: ResponsesRequest, model: responses },
  { method: 'POST', url: '/v1/responses/compact', bodySchema: ResponsesCompactRequest, model: compact },
];
