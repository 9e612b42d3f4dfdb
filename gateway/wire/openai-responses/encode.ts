/**
 * Canonical answer → a Responses `response` object (docs/protocols.md §3).
 *
 * - Output items in block order: a thinking block is a `reasoning` item, its text as one summary
 *   part and its `encrypted_content` OpenAI's own, or for another family's reasoning Tollgate's
 *   mark (core/reasoning.ts), which Codex resends verbatim so the reasoning returns to its family
 *   (docs/protocols.md §6.6); Anthropic's redacted thinking is a reasoning item with only a mark,
 *   and so is a tool call's own signature (Gemini's), just before its call. Adjacent text blocks
 *   of one `phase` are one `message` item (with that phase) of one `output_text` part each; a
 *   tool call is a `function_call` item whose `call_id` is the canonical id; a compaction block is
 *   a `compaction` item. Images and documents have no output item and are dropped.
 * - Item ids are made from Tollgate's request id and the output index, so they are stable for a
 *   request and the same in a stream as in the stored response. Items are always `completed`:
 *   a cut-off answer says so once, in the response's `status` and `incomplete_details`.
 * - `output_text` is left out: it is an SDK convenience, computed by the SDK, not a wire field.
 * - The echo fields (`tools`, `instructions`, `temperature`…) are fixed defaults: the encoder does
 *   not see the request, and clients read the output and usage, not the echo.
 */
import type { CanonicalResponse, Phase, ProviderFamily, StopReason } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { mark, markThinking } from '../../core/reasoning.js';
import { cacheWriteTokens, type Usage } from '../../core/usage.js';

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
}

export interface SummaryText {
  type: 'summary_text';
  text: string;
}

export type OutputItem =
  | { type: 'reasoning'; id: string; summary: SummaryText[]; encrypted_content?: string }
  | { type: 'message'; id: string; role: 'assistant'; status: ItemStatus; content: OutputText[]; phase?: Phase }
  | { type: 'compaction'; id: string; encrypted_content: string }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: ItemStatus;
      namespace?: string;
    };

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponsesBody {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  store: boolean;
  temperature: null;
  top_p: null;
  text: { format: { type: 'text' } };
  tool_choice: 'auto';
  tools: [];
  metadata: Record<string, string>;
  usage?: ResponsesUsage;
}

export interface ResponsesEncodeOptions {
  /** Flattened tool name → the Codex namespace it came from (decode.ts toolNamespaces), put back on function_call items. */
  namespaces?: ReadonlyMap<string, string>;
  /** Echoed as `store` (default false: Tollgate keeps its own chain, OpenAI stores nothing). */
  store?: boolean;
  /** Echoed as `previous_response_id`. */
  previousResponseId?: string;
  /** Called with the final response object (completed, incomplete or failed), streamed or not (makeCodec), e.g. for the response store. */
  onResponse?(response: ResponsesBody): void;
}

/**
 * Canonical usage in Responses' shape. Responses counts cached tokens *inside* input_tokens (like
 * Chat Completions), so every input bucket is added back, with cache reads and writes also shown
 * in input_tokens_details. reasoning_tokens is already inside output_tokens.
 */
export function toResponsesUsage(u: Usage): ResponsesUsage {
  const input = u.inputTokens + u.cacheReadTokens + cacheWriteTokens(u) + u.audioInputTokens + u.imageInputTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheReadTokens, cache_write_tokens: cacheWriteTokens(u) },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: input + u.outputTokens,
  };
}

/** docs/protocols.md §6.5: a cut-off answer is `incomplete` with a reason; everything else is `completed`. */
export function statusOf(r: StopReason): Pick<ResponsesBody, 'status' | 'incomplete_details'> {
  if (r === 'max_tokens' || r === 'context_exceeded')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (r === 'refusal') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

const PLAIN_ID = /^req_[a-zA-Z0-9_-]*$/;
/** The last request id's base: a response names it in its id and every item's, so one request asks for it often. */
let lastId: string | undefined;
let lastBase = '';
/** The request id without its `req_` and anything outside [A-Za-z0-9_-] (the two regular expressions run once an id). */
export function idBase(ctx: EncodeContext): string {
  if (ctx.requestId !== lastId) {
    const id = ctx.requestId;
    // Tollgate's own ids (store/request-id.ts) need nothing taken out but their prefix: one test, no new strings.
    lastBase = PLAIN_ID.test(id) ? id.slice(4) : id.replace(/^req_/, '').replace(/[^a-zA-Z0-9_-]/g, '');
    lastId = id;
  }
  return lastBase;
}
export const responseId = (ctx: EncodeContext): string => `resp_${idBase(ctx)}`;
export type ItemPrefix = 'msg' | 'fc' | 'rs' | 'cmp';
export const itemId = (prefix: ItemPrefix, ctx: EncodeContext, outputIndex: number): string =>
  itemIdOf(prefix, idBase(ctx), outputIndex);
/** An item's id from the request id's base (idBase): a stream's writer takes the base once. */
export const itemIdOf = (prefix: ItemPrefix, base: string, outputIndex: number): string =>
  `${prefix}_${base}_${outputIndex}`;

/** The response object around `output`; `usage` is added by the caller when it is known. */
export function responseShell(
  ctx: EncodeContext,
  opts: ResponsesEncodeOptions,
  createdAt: number,
  state: Pick<ResponsesBody, 'status' | 'incomplete_details'>,
): ResponsesBody {
  return {
    id: responseId(ctx),
    object: 'response',
    created_at: createdAt,
    // Written out, not spread: a spread followed by more properties is V8's slow path in Node 20.
    status: state.status,
    incomplete_details: state.incomplete_details,
    error: null,
    instructions: null,
    model: ctx.requestedModel,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: opts.previousResponseId ?? null,
    store: opts.store ?? false,
    temperature: null,
    top_p: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    metadata: {},
  };
}

export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  status: ItemStatus,
  opts: ResponsesEncodeOptions,
): OutputItem {
  const namespace = opts.namespaces?.get(name);
  const item: OutputItem = { type: 'function_call', id, call_id: callId, name, arguments: args, status };
  if (namespace !== undefined) item.namespace = namespace;
  return item;
}

export function reasoningItem(id: string, text: string, encrypted: string | undefined): OutputItem {
  const item: OutputItem = { type: 'reasoning', id, summary: text === '' ? [] : [{ type: 'summary_text', text }] };
  if (encrypted !== undefined) item.encrypted_content = encrypted;
  return item;
}

export function compactionItem(id: string, encrypted: string): OutputItem {
  return { type: 'compaction', id, encrypted_content: encrypted };
}

/** The `encrypted_content` of a thinking block's reasoning item: OpenAI's own, else Tollgate's mark; undefined for OpenAI's unsigned. */
export function encryptedOf(b: { family?: ProviderFamily; signature?: string }): string | undefined {
  return b.family === 'openai' ? b.signature : markThinking({ type: 'thinking', text: '', ...b });
}

/** The `encrypted_content` that carries a tool call's own signature (Gemini's) in a reasoning item before the call. */
export function callCarrier(callId: string, signature: string, family: ProviderFamily | undefined): string {
  return mark({ kind: 'call', family: family ?? 'gemini', callId, signature });
}

/** The `encrypted_content` that carries Anthropic's redacted thinking. */
export function redactedCarrier(data: string, family: ProviderFamily | undefined): string {
  return mark({ kind: 'redacted', family: family ?? 'anthropic', data });
}

/** The `output` array alone, as the route's response store keeps it. */
export function outputItems(
  res: CanonicalResponse,
  ctx: EncodeContext = { requestedModel: res.model, requestId: res.id },
  opts: ResponsesEncodeOptions = {},
): OutputItem[] {
  const out: OutputItem[] = [];
  let message: Extract<OutputItem, { type: 'message' }> | undefined;
  for (const b of res.content) {
    if (b.type === 'text') {
      if (!message || message.phase !== b.phase) {
        message = {
          type: 'message',
          id: itemId('msg', ctx, out.length),
          role: 'assistant',
          status: 'completed',
          content: [],
        };
        if (b.phase) message.phase = b.phase;
        out.push(message);
      }
      message.content.push({ type: 'output_text', text: b.text, annotations: [] });
    } else if (b.type === 'compaction') {
      out.push(compactionItem(b.id ?? itemId('cmp', ctx, out.length), b.data));
      message = undefined;
    } else if (b.type === 'tool_call') {
      if (b.signature)
        out.push(reasoningItem(itemId('rs', ctx, out.length), '', callCarrier(b.id, b.signature, b.signatureFamily)));
      out.push(
        functionCallItem(itemId('fc', ctx, out.length), b.id, b.name, JSON.stringify(b.input), 'completed', opts),
      );
      message = undefined;
    } else if (b.type === 'thinking') {
      const encrypted = encryptedOf(b);
      if (b.text === '' && encrypted === undefined) continue;
      out.push(reasoningItem(itemId('rs', ctx, out.length), b.text, encrypted));
      message = undefined;
    } else if (b.type === 'redacted_thinking') {
      out.push(reasoningItem(itemId('rs', ctx, out.length), '', redactedCarrier(b.data, b.family)));
      message = undefined;
    }
  }
  return out;
}

export function encodeResponse(
  res: CanonicalResponse,
  ctx: EncodeContext,
  opts: ResponsesEncodeOptions = {},
): ResponsesBody {
  const body = responseShell(ctx, opts, Math.floor(Date.now() / 1000), statusOf(res.stopReason));
  body.output = outputItems(res, ctx, opts);
  body.usage = toResponsesUsage(res.usage);
  return body;
}
