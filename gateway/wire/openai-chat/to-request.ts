/**
 * Canonical request → an OpenAI-compatible `/chat/completions` request (the line's base URL
 * includes `/v1`). Written for the widest set of compatible servers, not only api.openai.com:
 *
 * - System blocks become ONE leading `system` message, joined with "\n\n", as a plain string:
 *   several system messages, or array content in them, break the chat templates of many local
 *   servers. Canonical mid-conversation system messages become `system` messages in place.
 * - User content is a string when it is a single text block, else an array of parts.
 * - Each tool_result becomes its own `role:"tool"` message with string content, placed before
 *   the rest of that user turn (OpenAI wants them right after the assistant's calls). Tool
 *   messages cannot hold images on most servers: an image becomes "[image omitted]" and a note.
 *   `isError` has no field: the text gets an "Error: " prefix.
 * - Assistant text blocks are concatenated (they are pieces of one model answer). Reasoning goes
 *   back only to a line whose vendor takes it (the `reasoningField` quirk: DeepSeek, Kimi; OpenRouter
 *   in its `reasoning` field), as the text of the turn's thinking, on every assistant message (empty when the
 *   turn had none, e.g. one from another family: those vendors refuse a tool-call turn without
 *   it). Elsewhere it is dropped: strict servers refuse fields they do not know.
 * - `max_tokens` by default: many compatible servers (vLLM, llama.cpp, Ollama, DeepSeek…) know only
 *   it, while api.openai.com rejects it for reasoning models and wants `max_completion_tokens`;
 *   `maxTokensField` lets a line choose.
 * - Thinking → reasoning_effort: an explicit budget maps to a level (≤2048 low, ≤8192 medium,
 *   else high). `adaptive` sends nothing, i.e. the model's own default, because the field is
 *   refused by non-reasoning models and Claude Code sends adaptive on every request.
 * - top_k and cache_control have no Chat Completions field and are dropped.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  ReasoningEffort,
  TextBlock,
} from '../../core/canonical.js';
import type { UpstreamRequest } from '../../core/codec.js';
import type { Quirks } from '../../core/quirks.js';
import { effortOf } from '../../core/shaping.js';

export type ChatPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: ChatToolCall[];
      reasoning_content?: string;
      reasoning?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: {
    type: 'function';
    function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
  }[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: false;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string[];
  temperature?: number;
  top_p?: number;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  user?: string;
  reasoning_effort?: ReasoningEffort;
  response_format?:
    | { type: 'text' }
    | { type: 'json_object' }
    | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  stream?: true;
  stream_options?: { include_usage: true };
  /** DeepSeek's and Kimi's switch (the `reasoningField` quirk): sent only to turn thinking off. */
  thinking?: { type: 'disabled' };
  /** OpenRouter's reasoning settings (`reasoningField: "reasoning"`), in place of reasoning_effort. */
  reasoning?: { effort: ReasoningEffort } | { enabled: false };
}

export interface ChatUpstreamRequest extends UpstreamRequest {
  body: ChatRequestBody;
  /** What could not be carried, for the log: always present here, where UpstreamRequest allows none. */
  notes: string[];
}

const joinText = (blocks: readonly { text: string }[], sep: string): string => blocks.map((b) => b.text).join(sep);

function imagePart(b: ImageBlock, notes: Set<string>): ChatPart {
  const s = b.source;
  if (s.kind === 'file') {
    notes.add('an image given by file id was replaced by "[image omitted]": chat image parts take only URLs');
    return { type: 'text', text: '[image omitted]' };
  }
  const url = s.kind === 'base64' ? `data:${s.mediaType};base64,${s.data}` : s.url;
  return { type: 'image_url', image_url: b.detail ? { url, detail: b.detail } : { url } };
}

function documentPart(b: DocumentBlock, notes: Set<string>): ChatPart {
  const s = b.source;
  const named = (file: { file_data?: string; file_id?: string }): ChatPart => ({
    type: 'file',
    file: b.title === undefined ? file : { ...file, filename: b.title },
  });
  if (s.kind === 'base64') return named({ file_data: `data:${s.mediaType};base64,${s.data}` });
  if (s.kind === 'file') return named({ file_id: s.fileId });
  if (s.kind === 'text') {
    notes.add('a plain-text document was sent as a text part');
    return { type: 'text', text: s.data };
  }
  notes.add('a document given by URL was replaced by a placeholder: chat file parts cannot fetch URLs');
  return { type: 'text', text: `[document omitted: ${s.url}]` };
}

function toolMessage(b: Extract<ContentBlock, { type: 'tool_result' }>, notes: Set<string>): ChatMessage {
  const pieces = b.content.map((c) => {
    if (c.type === 'text') return c.text;
    notes.add('an image in a tool result was replaced by "[image omitted]": tool messages carry text only');
    return '[image omitted]';
  });
  const text = pieces.join('\n\n');
  return {
    role: 'tool',
    tool_call_id: b.toolCallId,
    content: b.isError ? (text === '' ? 'Error' : `Error: ${text}`) : text,
  };
}

function userMessages(m: CanonicalMessage, out: ChatMessage[], notes: Set<string>): void {
  const parts: ChatPart[] = [];
  for (const b of m.content) {
    if (b.type === 'tool_result') out.push(toolMessage(b, notes));
    else if (b.type === 'text') parts.push({ type: 'text', text: b.text });
    else if (b.type === 'image') parts.push(imagePart(b, notes));
    else if (b.type === 'document') parts.push(documentPart(b, notes));
    else notes.add(`dropped a ${b.type} block from a user message`);
  }
  if (parts.length === 0) return;
  const only = parts[0];
  out.push({ role: 'user', content: parts.length === 1 && only?.type === 'text' ? only.text : parts });
}

function assistantMessage(
  m: CanonicalMessage,
  notes: Set<string>,
  reasoningField: Quirks['reasoningField'],
): ChatMessage {
  const texts: TextBlock[] = [];
  const calls: ChatToolCall[] = [];
  const thoughts: string[] = [];
  for (const b of m.content) {
    if (b.type === 'text') texts.push(b);
    else if (b.type === 'tool_call')
      calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } });
    else if (b.type === 'thinking' && reasoningField) thoughts.push(b.text);
    else if (b.type === 'thinking' || b.type === 'redacted_thinking')
      notes.add(`dropped ${b.type} blocks from the history: this line takes no reasoning back`);
    // Compaction is said once for every upstream that cannot take it (core/shaping.ts uncarriedStateNotes).
    else if (b.type !== 'compaction') notes.add(`dropped a ${b.type} block from an assistant message`);
  }
  const text = joinText(texts, '');
  // OpenAI wants content or tool_calls; null content is the norm next to tool calls.
  const message: Extract<ChatMessage, { role: 'assistant' }> =
    calls.length === 0
      ? { role: 'assistant', content: text }
      : { role: 'assistant', content: text === '' ? null : text, tool_calls: calls };
  if (reasoningField) message[reasoningField] = thoughts.join('\n\n');
  return message;
}

function systemMessage(m: CanonicalMessage, notes: Set<string>): ChatMessage {
  const texts = m.content.filter((b): b is TextBlock => b.type === 'text');
  if (texts.length < m.content.length) notes.add('dropped non-text blocks from a system message');
  return { role: 'system', content: joinText(texts, '\n\n') };
}

function toolFields(req: CanonicalRequest, body: ChatRequestBody): void {
  // OpenAI rejects tool_choice and parallel_tool_calls without tools.
  if (req.tools.length === 0) return;
  body.tools = req.tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.inputSchema,
      ...(t.strict !== undefined ? { strict: t.strict } : {}),
    },
  }));
  const c = req.toolChoice;
  if (!c) return;
  body.tool_choice =
    c.type === 'none'
      ? 'none'
      : c.type === 'auto'
        ? 'auto'
        : c.type === 'any'
          ? 'required'
          : { type: 'function', function: { name: c.name } };
  if (c.type !== 'none' && c.disableParallel) body.parallel_tool_calls = false;
}

export function toRequest(req: CanonicalRequest, opts: Quirks = {}): ChatUpstreamRequest {
  const notes = new Set<string>();
  const messages: ChatMessage[] = [];
  const system = joinText(req.system, '\n\n');
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const m of req.messages) {
    if (m.role === 'user') userMessages(m, messages, notes);
    else if (m.role === 'assistant') messages.push(assistantMessage(m, notes, opts.reasoningField));
    else messages.push(systemMessage(m, notes));
  }
  const body: ChatRequestBody = { model: req.model, messages };
  toolFields(req, body);
  if (req.maxOutputTokens !== undefined) body[opts.maxTokensField ?? 'max_tokens'] = req.maxOutputTokens;
  if (req.stopSequences?.length) body.stop = req.stopSequences;
  // OpenAI's range is 0–2; a value from another protocol's scale is clamped, not refused.
  if (req.temperature !== undefined) body.temperature = Math.min(2, Math.max(0, req.temperature));
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.presencePenalty !== undefined) body.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) body.frequency_penalty = req.frequencyPenalty;
  if (req.user !== undefined) body.user = req.user;
  const effort = effortOf(req);
  const disabled = req.thinking?.type === 'disabled';
  if (opts.reasoningField === 'reasoning') {
    // OpenRouter: one `reasoning` object, which it turns into each vendor's own setting.
    if (disabled) body.reasoning = { enabled: false };
    else if (effort) body.reasoning = { effort };
  } else {
    if (effort) body.reasoning_effort = effort;
    // DeepSeek and Kimi think by default; their own switch is the only way to turn it off.
    if (opts.reasoningField && disabled) body.thinking = { type: 'disabled' };
  }
  const f = req.responseFormat;
  if (f) {
    body.response_format =
      f.type === 'json_schema'
        ? {
            type: 'json_schema',
            json_schema: { name: f.name, schema: f.schema, ...(f.strict !== undefined ? { strict: f.strict } : {}) },
          }
        : { type: f.type };
  }
  if (req.topK !== undefined) notes.add('top_k has no Chat Completions field and was dropped');
  if (req.stream) {
    body.stream = true;
    // OpenAI streams usage only when asked; Tollgate always asks, to bill from the upstream's count.
    body.stream_options = { include_usage: true };
  }
  return {
    path: '/chat/completions',
    headers: { 'content-type': 'application/json', accept: req.stream ? 'text/event-stream' : 'application/json' },
    body,
    notes: [...notes],
  };
}
