/**
 * OpenAI Responses (`POST /v1/responses`), stateless like Codex uses it (`store:false`, whole history resent).
 * Wire format: docs/protocols.md §3, checked against the `openai` SDK's Response and stream event types.
 * Compaction (docs/protocols.md §3.1): compaction items in the input must be the mock's own for the
 * account, and `context_management` with a `compact_threshold` the prompt reaches puts one first in
 * the output; `POST /v1/responses/compact` is mock/openai-compact.ts.
 */
import { isObject, randomId, sendJson, sendStream, type Exchange, type Json, type SseFrame } from './http.js';
import { openAIError } from './openai-chat.js';
import { compactionItem, compactionRefusal } from './openai-compact.js';
import { accountOf, encryptedReasoning, encryptedReasoningValid, thought } from './reasoning.js';
import { planReply, splitInto, type ToolSpec } from './reply.js';

export function openAIResponses(ex: Exchange, body: unknown): void | Promise<void> {
  if (!isObject(body)) return openAIError(ex, 400, 'We could not parse the JSON body of your request.');
  if (typeof body.model !== 'string') return openAIError(ex, 400, "Missing required parameter: 'model'.", {}, 'model');
  // The mock stores nothing, so a continuation can only fail, as it does on OpenAI for an unknown id.
  if (typeof body.previous_response_id === 'string') {
    const message = `Previous response with id '${body.previous_response_id}' not found.`;
    return openAIError(ex, 400, message, {}, 'previous_response_id', 'previous_response_not_found');
  }
  const items = inputItems(body.input);
  if (reasoningRefusal(ex, items, body.store) || compactionRefusal(ex, items)) return;
  // As in the chat mock, instructions in the history (a `developer` or `system` message, which is
  // where a Messages client's mid-conversation system message lands) do not end the user's turn.
  const last = items.filter((it) => !(isMessage(it) && (it.role === 'developer' || it.role === 'system'))).at(-1);
  const lastUser = [...items].reverse().find((it) => isMessage(it) && it.role === 'user');
  // Consecutive trailing function_call_output items answer one (possibly parallel) turn of calls.
  const toolResults: string[] = [];
  for (let i = items.length - 1; i >= 0 && items[i]?.type === 'function_call_output'; i--)
    toolResults.unshift(partsText(items[i]?.output));
  // Function tools are flat here ({type, name, parameters}), not nested under `function` as in Chat Completions.
  const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t: any) => t?.type === 'function' && typeof t.name === 'string')
    .map((t: any) => ({ name: t.name, schema: t.parameters }));
  const choice = body.tool_choice;

  const {
    calls,
    text: reply,
    usage: u,
  } = planReply(
    ex.scenario,
    {
      userText: lastUser ? partsText(lastUser.content) : '',
      toolResults,
      endsWithUserText: last !== undefined && isMessage(last) && last.role === 'user',
      tools,
      toolChoice:
        choice === 'none'
          ? 'none'
          : isObject(choice) && choice.type === 'function' && typeof choice.name === 'string'
            ? { name: choice.name }
            : 'auto',
      parallel: body.parallel_tool_calls !== false,
      maxTokens: body.max_output_tokens,
      stops: [], // the Responses API has no stop sequences
      promptChars: String(body.instructions ?? '').length + items.reduce((n, it) => n + itemChars(it), 0),
      ...(isObject(body.text?.format) &&
      (body.text.format.type === 'json_schema' || body.text.format.type === 'json_object')
        ? { json: { schema: body.text.format.schema } }
        : {}),
    },
    'call_',
  );
  // A reasoning model reasons unless told not to; the summary is shown only when asked for, and the
  // encrypted reasoning is returned only when `include` asks for it (store:false clients need it).
  const thinks = ex.scenario.think !== undefined && body.reasoning?.effort !== 'none';
  const summary =
    thinks && body.reasoning?.summary ? thought(lastUser ? partsText(lastUser.content) : '', toolResults) : '';
  const encrypted = thinks && Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
  const reasoningItem: Json | undefined = thinks
    ? {
        id: `rs_${randomId(40)}`,
        type: 'reasoning',
        summary: summary ? [{ type: 'summary_text', text: summary }] : [],
        ...(encrypted ? { encrypted_content: encryptedReasoning(summary, accountOf(ex.req.headers)) } : {}),
      }
    : undefined;

  const incomplete = calls.length === 0 && reply.end === 'length';
  const status = incomplete ? 'incomplete' : 'completed';
  // Server-side compaction: once the prompt reaches the client's threshold, the answer starts with a compaction item.
  const threshold = (Array.isArray(body.context_management) ? body.context_management : []).find(
    (c: any) => c?.type === 'compaction' && typeof c.compact_threshold === 'number',
  )?.compact_threshold;
  const compacted = typeof threshold === 'number' && u.prompt >= threshold ? [compactionItem(ex, items)] : [];
  const output: Json[] = [
    ...compacted,
    ...(reasoningItem ? [reasoningItem] : []),
    ...(calls.length
      ? calls.map((c) => ({
          id: `fc_${randomId(40)}`,
          type: 'function_call',
          status: 'completed',
          arguments: c.args,
          call_id: c.id,
          name: c.name,
        }))
      : [
          {
            id: `msg_${randomId(40)}`,
            type: 'message',
            status,
            content: [outputText(reply.text)],
            role: 'assistant',
            ...(ex.scenario.phase ? { phase: 'final_answer' } : {}),
          },
        ]),
  ];
  // input_tokens includes the cached part (protocols.md §6.11); reasoning_tokens is part of output_tokens.
  const usage = {
    input_tokens: u.prompt,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.prompt + u.output,
  };
  const id = `resp_${randomId(40)}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const response = (state: string, outputItems: Json[], withUsage: boolean): Json => ({
    id,
    object: 'response',
    created_at: createdAt,
    status: state,
    background: false,
    error: null,
    incomplete_details: state === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: body.model,
    output: outputItems,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    safety_identifier: null,
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    // In-progress snapshots carry `usage: null`; the final object has the numbers unless the scenario says no-usage.
    ...(withUsage ? { usage } : state === 'in_progress' ? { usage: null } : {}),
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  });
  const headers = { 'x-request-id': `req_${ex.requestId}` };
  const reportUsage = !ex.scenario.noUsage;

  if (body.stream !== true) return sendJson(ex, 200, response(status, output, reportUsage), headers);

  const frames: SseFrame[] = [];
  const event = (type: string, data: Json) =>
    frames.push({ event: type, data: JSON.stringify({ type, sequence_number: frames.length, ...data }) });
  event('response.created', { response: response('in_progress', [], false) });
  event('response.in_progress', { response: response('in_progress', [], false) });
  output.forEach((item, output_index) => {
    const item_id = item.id as string;
    if (item.type === 'reasoning') {
      event('response.output_item.added', { output_index, item: { id: item_id, type: 'reasoning', summary: [] } });
      for (const [summary_index, part] of (item.summary as Json[]).entries()) {
        event('response.reasoning_summary_part.added', {
          item_id,
          output_index,
          summary_index,
          part: { type: 'summary_text', text: '' },
        });
        for (const delta of splitInto(part.text, 2))
          event('response.reasoning_summary_text.delta', { item_id, output_index, summary_index, delta });
        event('response.reasoning_summary_text.done', { item_id, output_index, summary_index, text: part.text });
        event('response.reasoning_summary_part.done', { item_id, output_index, summary_index, part });
      }
    } else if (item.type === 'compaction') {
      event('response.output_item.added', { output_index, item });
    } else if (item.type === 'function_call') {
      event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of splitInto(item.arguments, 3))
        event('response.function_call_arguments.delta', { item_id, output_index, delta });
      event('response.function_call_arguments.done', {
        item_id,
        output_index,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      const at = { item_id, output_index, content_index: 0 };
      event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      event('response.content_part.added', { ...at, part: outputText('') });
      for (const delta of reply.fragments) event('response.output_text.delta', { ...at, delta, logprobs: [] });
      event('response.output_text.done', { ...at, text: reply.text, logprobs: [] });
      event('response.content_part.done', { ...at, part: outputText(reply.text) });
    }
    event('response.output_item.done', { output_index, item });
  });
  // The terminal event names the final status; usage arrives only here (protocols.md §3, §6.11).
  event(incomplete ? 'response.incomplete' : 'response.completed', { response: response(status, output, reportUsage) });
  return sendStream(ex, frames, headers);
}

/**
 * OpenAI's checks on reasoning items sent back (protocols.md §3, §6.6): `encrypted_content` must be
 * OpenAI's own; without it, with store:false, the item can only be looked up by id, which fails.
 * Sends the error and returns true when the input does not pass.
 */
function reasoningRefusal(ex: Exchange, items: Json[], store: unknown): true | undefined {
  for (const [i, it] of items.entries()) {
    if (it.type !== 'reasoning') continue;
    const id = typeof it.id === 'string' ? it.id : '';
    if (it.encrypted_content !== undefined && it.encrypted_content !== null) {
      if (encryptedReasoningValid(it.encrypted_content, accountOf(ex.req.headers))) continue;
      openAIError(
        ex,
        400,
        `The encrypted content for item ${id || `input[${i}]`} could not be verified.`,
        {},
        null,
        'invalid_encrypted_content',
      );
      return true;
    }
    if (store === false) {
      openAIError(
        ex,
        404,
        `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        {},
        'input',
      );
      return true;
    }
  }
  return undefined;
}

function outputText(text: string): Json {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

/** `input` as items: a bare string is one user message. */
function inputItems(input: unknown): Json[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input.filter(isObject) : [];
}

/** A message item; `type` may be omitted (the SDK's EasyInputMessage). */
function isMessage(item: Json): boolean {
  return (item.type ?? 'message') === 'message' && typeof item.role === 'string';
}

/** Text of a string, or of a list of parts (`input_text`, `output_text`), as message content and tool output are. */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

function itemChars(item: Json): number {
  if (item.type === 'function_call') return String(item.arguments ?? '').length;
  if (item.type === 'function_call_output') return partsText(item.output).length;
  return isMessage(item) ? partsText(item.content).length : 0;
}
