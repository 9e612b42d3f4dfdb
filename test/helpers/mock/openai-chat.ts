/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), OpenAI's error body (shared with the Responses API)
 * and the OpenAI shape of `GET /v1/models`. Wire format: docs/protocols.md §1.
 */
import {
  isObject,
  randomId,
  sendJson,
  sendStream,
  writeWhole,
  type Exchange,
  type Json,
  type SseFrame,
} from './http.js';
import { chatReasoningOf, rememberChatReasoning, thought } from './reasoning.js';
import { planReply, splitInto, stopList, type ToolSpec } from './reply.js';

const FINGERPRINT = 'fp_mock';

export function openAIChat(ex: Exchange, body: unknown): void | Promise<void> {
  if (!isObject(body)) return openAIError(ex, 400, 'We could not parse the JSON body of your request.');
  if (!Array.isArray(body.messages))
    return openAIError(ex, 400, "Missing required parameter: 'messages'.", {}, 'messages');
  const messages: Json[] = body.messages.filter(isObject);
  // DeepSeek and Kimi think unless the request turns thinking off.
  const thinks = ex.scenario.think !== undefined && body.thinking?.type !== 'disabled';
  const refused = thinks ? reasoningRefusal(messages, ex.scenario.think === 'kimi') : undefined;
  if (refused) return openAIError(ex, 400, refused);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t: any) => t?.type === 'function' && typeof t.function?.name === 'string')
    .map((t: any) => ({ name: t.function.name, schema: t.function.parameters }));
  const forced = isObject(body.tool_choice) ? body.tool_choice.function?.name : undefined;
  // Consecutive trailing tool messages answer one (possibly parallel) assistant turn.
  const toolResults: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--)
    toolResults.unshift(openAIText(messages[i]?.content));

  const {
    calls,
    text: reply,
    usage: u,
  } = planReply(
    ex.scenario,
    {
      userText: openAIText(lastUser?.content),
      toolResults,
      endsWithUserText: messages.filter((m) => m.role !== 'system' && m.role !== 'developer').at(-1)?.role === 'user',
      tools,
      toolChoice: body.tool_choice === 'none' ? 'none' : typeof forced === 'string' ? { name: forced } : 'auto',
      parallel: body.parallel_tool_calls !== false,
      maxTokens: body.max_completion_tokens ?? body.max_tokens,
      stops: stopList(body.stop),
      promptChars: messages.reduce((n, m) => n + openAIText(m.content).length + toolCallChars(m.tool_calls), 0),
      ...(isObject(body.response_format) &&
      (body.response_format.type === 'json_schema' || body.response_format.type === 'json_object')
        ? { json: { schema: body.response_format.json_schema?.schema } }
        : {}),
    },
    'call_',
  );
  const reasoning = thinks ? thought(openAIText(lastUser?.content), toolResults) : '';
  rememberChatReasoning(
    calls.map((c) => c.id),
    reasoning,
  );

  const usage = {
    prompt_tokens: u.prompt,
    completion_tokens: u.output,
    total_tokens: u.prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
  const finish = calls.length ? 'tool_calls' : reply.end === 'length' ? 'length' : 'stop';
  const id = `chatcmpl-${randomId(29)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = String(body.model ?? 'mock-small');
  const headers = { 'x-request-id': `req_${ex.requestId}` };

  if (body.stream !== true) {
    const message: Json = {
      role: 'assistant',
      content: calls.length ? null : reply.text,
      ...(thinks ? { reasoning_content: reasoning } : {}),
      refusal: null,
      annotations: [],
    };
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.args },
      }));
    }
    return sendJson(
      ex,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        ...(ex.scenario.noUsage ? {} : { usage }),
        service_tier: 'default',
        system_fingerprint: FINGERPRINT,
      },
      headers,
    );
  }

  const includeUsage = body.stream_options?.include_usage === true && !ex.scenario.noUsage;
  const chunk = (choices: Json[], extra: Json = {}): SseFrame => ({
    data: JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
      choices,
      // With include_usage every chunk carries `usage: null`, and only the extra final chunk has numbers.
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    }),
  });
  const delta = (d: Json, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);

  const frames: SseFrame[] = [delta({ role: 'assistant', content: calls.length ? null : '', refusal: null })];
  // DeepSeek streams its reasoning first, in `reasoning_content` deltas.
  if (thinks)
    for (const piece of splitInto(reasoning, 2)) frames.push(delta({ content: null, reasoning_content: piece }));
  if (calls.length) {
    calls.forEach((c, index) =>
      frames.push(
        delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
      ),
    );
    // Parallel calls interleave their argument fragments; clients must join them by index, not by order.
    const pieces = calls.map((c) => splitInto(c.args, 3));
    for (let step = 0; step < Math.max(...pieces.map((p) => p.length)); step++) {
      pieces.forEach((p, index) => {
        const piece = p[step];
        if (piece !== undefined) frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      });
    }
  } else {
    for (const fragment of reply.fragments) frames.push(delta({ content: fragment }));
  }
  frames.push(delta({}, finish));
  if (includeUsage) frames.push(chunk([], { usage }));
  if (!ex.scenario.noDone) frames.push({ data: '[DONE]' });
  return sendStream(ex, frames, headers);
}

/**
 * DeepSeek's and Kimi's rule in thinking mode (protocols.md §6.6): every assistant turn with tool
 * calls must carry its `reasoning_content`. The mock also checks that the reasoning it gave with
 * its own calls comes back unchanged, so a test sees reasoning that was lost or swapped.
 */
function reasoningRefusal(messages: Json[], kimi: boolean): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) continue;
    const given = m.reasoning_content;
    const own = m.tool_calls
      .map((c: any) => (typeof c?.id === 'string' ? chatReasoningOf(c.id) : undefined))
      .find((r: string | undefined) => r !== undefined);
    if (typeof given === 'string' && (own === undefined || own === given)) continue;
    return kimi
      ? `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${i}`
      : 'The `reasoning_content` in the thinking mode must be passed back to the API.';
  }
  return undefined;
}

function openAIText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

function toolCallChars(toolCalls: unknown): number {
  if (!Array.isArray(toolCalls)) return 0;
  return toolCalls.reduce((n: number, c: any) => n + String(c?.function?.arguments ?? '').length, 0);
}

/** `GET /v1/models` and `/v1/models/{id}` in OpenAI's shape; `rest` is the path after `/v1/models`. */
/**
 * OpenRouter's list entries: its name, context length, top provider's output cap and prices in USD
 * per token as decimal strings ("-1": varies per request, as on its auto router). Ids not here get
 * an entry without prices.
 */
export const OPENROUTER_LISTING: Record<
  string,
  { name: string; context_length: number; max_completion_tokens: number; pricing: Record<string, string> }
> = {
  'mock-small': {
    name: 'Mock: Small',
    context_length: 128_000,
    max_completion_tokens: 16_384,
    pricing: { prompt: '0.0000005', completion: '0.0000015', input_cache_read: '0.00000005', request: '0', image: '0' },
  },
  'acme/priced-model': {
    name: 'Acme: Priced',
    context_length: 200_000,
    max_completion_tokens: 32_000,
    pricing: {
      prompt: '0.00000125',
      completion: '0.00001',
      input_cache_read: '0.000000125',
      input_cache_write: '0.0000015625',
    },
  },
  'acme/finely-priced': {
    name: 'Acme: Fine',
    context_length: 64_000,
    max_completion_tokens: 8_000,
    pricing: { prompt: '1.2345e-7', completion: '0.0000004' },
  },
  'openrouter/auto': {
    name: 'Auto Router',
    context_length: 2_000_000,
    max_completion_tokens: 0,
    pricing: { prompt: '-1', completion: '-1' },
  },
};

export function openAIModels(ex: Exchange, models: readonly string[], rest: string, openrouter = false): void {
  const shape = (id: string) => {
    const listing = openrouter ? OPENROUTER_LISTING[id] : undefined;
    const extra = listing
      ? {
          name: listing.name,
          context_length: listing.context_length,
          top_provider: {
            context_length: listing.context_length,
            max_completion_tokens: listing.max_completion_tokens || null,
          },
          pricing: listing.pricing,
        }
      : {};
    return { id, object: 'model', created: 1_700_000_000, owned_by: 'mock', ...extra };
  };
  if (rest === '' || rest === '/') return sendJson(ex, 200, { object: 'list', data: models.map(shape) });
  const id = decodeURIComponent(rest.slice(1));
  if (models.includes(id)) return sendJson(ex, 200, shape(id));
  return openAIError(ex, 404, `The model '${id}' does not exist`);
}

/** `{error:{message,type,param,code}}`, the body of every OpenAI API error (Chat Completions and Responses). */
export function openAIError(
  ex: Exchange,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  param: string | null = null,
  code?: string,
): void {
  const [type, defaultCode] = openAIErrorType(status);
  const body = { error: { message, type, param, code: code ?? defaultCode } };
  writeWhole(ex, status, JSON.stringify(body), { ...headers, 'x-request-id': `req_${ex.requestId}` });
}

function openAIErrorType(status: number): [type: string, code: string | null] {
  const known: Record<number, [string, string | null]> = {
    401: ['invalid_request_error', 'invalid_api_key'],
    402: ['insufficient_quota', 'insufficient_quota'],
    404: ['invalid_request_error', 'model_not_found'],
    429: ['requests', 'rate_limit_exceeded'],
  };
  return known[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
}
