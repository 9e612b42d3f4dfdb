/**
 * Anthropic Messages (`POST /v1/messages`, `/v1/messages/count_tokens`), its error body and the Anthropic shape
 * of `GET /v1/models`. Wire format: docs/protocols.md §2.
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
import {
  accountOf,
  anthropicSignature,
  anthropicSignatureValid,
  redactedData,
  redactedDataValid,
  thought,
} from './reasoning.js';
import { planReply, resolveUsage, splitInto, stopList, type ToolSpec } from './reply.js';

export function anthropicMessages(ex: Exchange, body: unknown): void | Promise<void> {
  if (!checkHeaders(ex)) return;
  if (!isObject(body)) return anthropicError(ex, 400, 'There was an issue with the request body: invalid JSON');
  if (!Array.isArray(body.messages)) return anthropicError(ex, 400, 'messages: Field required');
  if (typeof body.max_tokens !== 'number') return anthropicError(ex, 400, 'max_tokens: Field required');
  const messages: Json[] = body.messages.filter(isObject);
  const refusedByVersion = versionRefusal(String(ex.req.headers['anthropic-version']), body, messages);
  if (refusedByVersion) return anthropicError(ex, 400, refusedByVersion);
  const account = accountOf(ex.req.headers);
  const refused = reasoningRefusal(messages, body.thinking, account);
  if (refused) return anthropicError(ex, 400, refused);
  // Claude Code may append role:"system" messages after the user's turn; they do not end the conversation.
  const last = messages.filter((m) => m.role !== 'system').at(-1);
  const toolResults = (last ? blocks(last.content) : []).filter((b) => b.type === 'tool_result');
  const lastUser = [...messages]
    .reverse()
    .find((m) => m.role === 'user' && blocks(m.content).some((b) => b.type === 'text'));
  const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t: any) => typeof t?.name === 'string')
    .map((t: any) => ({ name: t.name, schema: t.input_schema }));
  const choice: Json = isObject(body.tool_choice) ? body.tool_choice : {};

  const {
    calls,
    text: reply,
    usage: u,
  } = planReply(
    ex.scenario,
    {
      userText: lastUser ? text(lastUser.content) : '',
      toolResults: toolResults.map((b) => text(b.content)),
      endsWithUserText: last?.role === 'user' && toolResults.length === 0,
      tools,
      toolChoice:
        choice.type === 'none'
          ? 'none'
          : choice.type === 'tool' && typeof choice.name === 'string'
            ? { name: choice.name }
            : 'auto',
      parallel: choice.disable_parallel_tool_use !== true,
      maxTokens: body.max_tokens,
      stops: stopList(body.stop_sequences),
      promptChars: promptChars(body),
      ...(isObject(body.output_config?.format) && body.output_config.format.type === 'json_schema'
        ? { json: { schema: body.output_config.format.schema } }
        : {}),
    },
    'toolu_',
  );
  // A thinking model thinks when the request turns thinking on; its blocks open the answer.
  const thinks =
    ex.scenario.think !== undefined && (body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive');
  const thinking = thinks
    ? thought(
        lastUser ? text(lastUser.content) : '',
        toolResults.map((b) => text(b.content)),
      )
    : '';
  const reasoning: Json[] = thinks
    ? [{ type: 'thinking', thinking, signature: anthropicSignature(thinking, account) }]
    : [];
  if (thinks && ex.scenario.think === 'redacted')
    reasoning.push({ type: 'redacted_thinking', data: redactedData(account) });

  // Anthropic's input_tokens counts only the uncached part of the prompt (protocols.md §2, §6.11).
  const inputUsage = {
    input_tokens: Math.max(0, u.prompt - u.cached - u.cacheWrite),
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cached,
  };
  const fullUsage = (outputTokens: number) => ({
    ...inputUsage,
    cache_creation: {
      ephemeral_5m_input_tokens: u.cacheWrite - u.cacheWrite1h,
      ephemeral_1h_input_tokens: u.cacheWrite1h,
    },
    output_tokens: outputTokens,
    service_tier: 'standard',
  });
  const stopReason = calls.length
    ? 'tool_use'
    : reply.end === 'length'
      ? 'max_tokens'
      : reply.end === 'stop_sequence'
        ? 'stop_sequence'
        : 'end_turn';
  const stopSequence = stopReason === 'stop_sequence' ? reply.stopSequence : null;
  const message = (content: Json[], stop: string | null, usage: Json): Json => ({
    id: `msg_${randomId(24)}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model ?? 'mock-small'),
    content,
    stop_reason: stop,
    stop_sequence: stop === null ? null : stopSequence,
    ...(ex.scenario.noUsage ? {} : { usage }),
  });
  const headers = { 'request-id': `req_${ex.requestId}` };

  if (body.stream !== true) {
    const content = [
      ...reasoning,
      ...(calls.length
        ? calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args) }))
        : [{ type: 'text', text: reply.text }]),
    ];
    return sendJson(ex, 200, message(content, stopReason, fullUsage(u.output)), headers);
  }

  const frames: SseFrame[] = [];
  const event = (data: Json) => frames.push({ event: data.type, data: JSON.stringify(data) });
  // Real message_start already carries the input usage; output_tokens there is a small placeholder.
  event({ type: 'message_start', message: message([], null, fullUsage(Math.min(1, u.output))) });
  event({ type: 'ping' });
  reasoning.forEach((b, index) => {
    if (b.type === 'redacted_thinking') {
      event({ type: 'content_block_start', index, content_block: b });
    } else {
      // A signature comes once, in a signature_delta just before the block stops (protocols.md §2).
      event({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of splitInto(b.thinking, 2))
        event({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      event({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
    }
    event({ type: 'content_block_stop', index });
  });
  const first = reasoning.length;
  if (calls.length) {
    calls.forEach((c, i) => {
      const index = first + i;
      event({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
      });
      for (const partial_json of splitInto(c.args, 3))
        event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      event({ type: 'content_block_stop', index });
    });
  } else {
    event({ type: 'content_block_start', index: first, content_block: { type: 'text', text: '' } });
    for (const fragment of reply.fragments)
      event({ type: 'content_block_delta', index: first, delta: { type: 'text_delta', text: fragment } });
    event({ type: 'content_block_stop', index: first });
  }
  // message_delta usage is cumulative (totals so far), never an increment.
  event({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: stopSequence },
    ...(ex.scenario.noUsage ? {} : { usage: { ...inputUsage, output_tokens: u.output } }),
  });
  event({ type: 'message_stop' });
  return sendStream(ex, frames, headers);
}

export function anthropicCountTokens(ex: Exchange, body: unknown): void {
  if (!checkHeaders(ex)) return;
  if (!isObject(body) || !Array.isArray(body.messages)) return anthropicError(ex, 400, 'messages: Field required');
  return sendJson(ex, 200, { input_tokens: resolveUsage(ex.scenario, promptChars(body), 0).prompt });
}

/** `GET /v1/models` and `/v1/models/{id}` in Anthropic's shape; `rest` is the path after `/v1/models`. */
export function anthropicModels(ex: Exchange, models: readonly string[], rest: string): void {
  const shape = (id: string) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' });
  if (rest === '' || rest === '/') {
    return sendJson(ex, 200, {
      data: models.map(shape),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    });
  }
  const id = decodeURIComponent(rest.slice(1));
  if (models.includes(id)) return sendJson(ex, 200, shape(id));
  return anthropicError(ex, 404, `model: ${id}`);
}

/** `{type:"error", error:{type,message}, request_id}` with the `request-id` header. */
export function anthropicError(
  ex: Exchange,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = { type: 'error', error: { type: errorType(status), message }, request_id: `req_${ex.requestId}` };
  writeWhole(ex, status, JSON.stringify(body), { ...headers, 'request-id': `req_${ex.requestId}` });
}

function errorType(status: number): string {
  const known: Record<number, string> = {
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return known[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Sends the error and returns false when the request lacks what Anthropic requires. */
function checkHeaders(ex: Exchange): boolean {
  const h = ex.req.headers;
  if (!h['x-api-key'] && !/^Bearer\s+\S/i.test(h.authorization ?? '')) {
    anthropicError(ex, 401, 'x-api-key header is required');
    return false;
  }
  // Only presence is checked: SDK 1.12.0 sends a newer date than 2023-06-01 (protocols.md §0).
  if (!h['anthropic-version']) {
    anthropicError(ex, 400, 'anthropic-version: header is required');
    return false;
  }
  return true;
}

/**
 * Anthropic's checks on reasoning sent back (protocols.md §2, §6.6): every thinking block must
 * carry the signature Anthropic gave that text for this account, redacted thinking must be Anthropic's own, and
 * with thinking `enabled` the assistant turn that opened a tool loop in progress must start with
 * thinking. Returns the error message, or undefined when the history passes.
 */
function reasoningRefusal(messages: Json[], thinking: unknown, account: string): string | undefined {
  for (const [i, m] of messages.entries()) {
    for (const [j, b] of blocks(m.content).entries()) {
      if (b.type === 'thinking' && !anthropicSignatureValid(b.thinking, b.signature, account))
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      if (b.type === 'redacted_thinking' && !redactedDataValid(b.data, account))
        return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
  }
  if (!isObject(thinking) || thinking.type !== 'enabled') return undefined;
  const turns = messages.filter((m) => m.role !== 'system');
  const last = turns.at(-1);
  if (last?.role !== 'user' || !blocks(last.content).some((b) => b.type === 'tool_result')) return undefined;
  const at = messages.lastIndexOf(turns.at(-2)!);
  const opener = at >= 0 ? blocks(messages[at]!.content)[0] : undefined;
  if (messages[at]?.role !== 'assistant' || opener?.type === 'thinking' || opener?.type === 'redacted_thinking')
    return undefined;
  return `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(opener?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

/**
 * What anthropic-version 2026-10-21 (and later) refuses that 2023-06-01 took (protocols.md §2.1):
 * `temperature`, `top_p` and `top_k` even at their defaults, a `document` block in an assistant
 * message, and non-empty `citations` on user text. Returns the error message, or undefined.
 */
function versionRefusal(version: string, body: Json, messages: Json[]): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version) || version < '2026-10-21') return undefined;
  for (const field of ['temperature', 'top_p', 'top_k'])
    if (body[field] !== undefined) return `${field}: Extra inputs are not permitted with anthropic-version ${version}`;
  for (const [i, m] of messages.entries()) {
    for (const [j, b] of blocks(m.content).entries()) {
      if (m.role === 'assistant' && b.type === 'document')
        return `messages.${i}.content.${j}: document blocks are not permitted in assistant messages with anthropic-version ${version}`;
      if (m.role === 'user' && b.type === 'text' && Array.isArray(b.citations) && b.citations.length > 0)
        return `messages.${i}.content.${j}.citations: citations are not permitted on user text with anthropic-version ${version}`;
    }
  }
  return undefined;
}

function blocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function text(content: unknown): string {
  return blocks(content)
    .map((b) => (typeof b.text === 'string' ? b.text : ''))
    .join('');
}

/** Characters of everything that is text in the prompt, counted the way the other formats count theirs. */
function promptChars(body: Json): number {
  const blockChars = (b: Json): number => {
    if (b.type === 'tool_use') return JSON.stringify(b.input ?? {}).length;
    if (b.type === 'tool_result') return text(b.content).length;
    if (b.type === 'thinking') return String(b.thinking ?? '').length;
    return typeof b.text === 'string' ? b.text.length : 0;
  };
  const sum = (content: unknown) => blocks(content).reduce((n, b) => n + blockChars(b), 0);
  return (
    sum(body.system) +
    (body.messages as unknown[]).filter(isObject).reduce((n: number, m: Json) => n + sum(m.content), 0)
  );
}
