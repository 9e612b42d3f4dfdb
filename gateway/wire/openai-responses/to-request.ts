/**
 * Canonical request → an OpenAI Responses `/responses` request (the line's base URL includes `/v1`).
 *
 * - System blocks become `instructions`, joined with "\n\n"; canonical mid-conversation system
 *   messages become `developer` message items in place.
 * - A user turn's tool results become `function_call_output` items placed before the rest of the
 *   turn (each must follow its call). Their output is a string when they hold only text (joined
 *   with "\n\n"), else an array of input parts; `isError` has no field, so it is said in the text.
 * - An assistant turn becomes items in block order: adjacent text blocks of one `phase` are one
 *   assistant message of `output_text` parts (with that phase), tool calls are `function_call`
 *   items with `call_id` = canonical id, compaction blocks are `compaction` items, and thinking is
 *   a `reasoning` item only when OpenAI made it ('openai' family with a signature, the
 *   `encrypted_content`); any other thinking is dropped with a note, since OpenAI cannot verify it.
 * - `context_management` goes on when a Responses client sent it (docs/protocols.md §3.1).
 * - Function tools are flat, with `strict` always sent: Responses makes function tools strict by
 *   default, which refuses most schemas written for other APIs (optional fields, no
 *   additionalProperties:false). Undeclared `strict` is sent as false.
 * - `store:false` always: Tollgate keeps the conversation itself and resends it in full, as Codex
 *   does. Reasoning then survives between turns only as `encrypted_content`, so it is asked for
 *   (`include`) whenever reasoning is requested or present in the history. It is not asked for
 *   otherwise: non-reasoning models refuse it.
 * - Reasoning effort comes from reasoningEffort, else from a thinking budget (≤2048 low, ≤8192
 *   medium, else high); `reasoning.summary` is not requested, as it needs a verified organisation.
 * - Responses has no stop sequences, top_k, seed or penalties: dropped with a note.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  Phase,
  ReasoningEffort,
  TextBlock,
  ToolResultBlock,
} from '../../core/canonical.js';
import type { UpstreamRequest } from '../../core/codec.js';
import { effortOf } from '../../core/shaping.js';

export type InputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url?: string; file_id?: string; detail: 'auto' | 'low' | 'high' }
  | { type: 'input_file'; file_data?: string; file_id?: string; file_url?: string; filename?: string };

export type InputItem =
  | { type: 'message'; role: 'user' | 'developer'; content: InputPart[] }
  | { type: 'message'; role: 'assistant'; content: { type: 'output_text'; text: string }[]; phase?: Phase }
  | { type: 'compaction'; encrypted_content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | InputPart[] }
  | { type: 'reasoning'; summary: { type: 'summary_text'; text: string }[]; encrypted_content: string };

export type TextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface ResponsesRequestBody {
  model: string;
  instructions?: string;
  input: InputItem[];
  tools?: {
    type: 'function';
    name: string;
    description?: string;
    parameters: Record<string, unknown>;
    strict: boolean;
  }[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; name: string };
  parallel_tool_calls?: false;
  max_output_tokens?: number;
  reasoning?: { effort: ReasoningEffort };
  text?: { format: TextFormat };
  temperature?: number;
  top_p?: number;
  user?: string;
  prompt_cache_key?: string;
  store: false;
  stream?: true;
  include?: ['reasoning.encrypted_content'];
  /** Compaction thresholds, as a Responses client sent them. */
  context_management?: { type: string; compact_threshold?: number | null }[];
}

export interface ResponsesUpstreamRequest extends UpstreamRequest {
  body: ResponsesRequestBody;
  notes: string[];
}

/** OpenAI refuses max_output_tokens below 16. */
export const MIN_OUTPUT_TOKENS = 16;

type Notes = Set<string>;
const joinText = (blocks: readonly TextBlock[]): string => blocks.map((b) => b.text).join('\n\n');

function imagePart(b: ImageBlock): InputPart {
  const s = b.source;
  const where =
    s.kind === 'file'
      ? { file_id: s.fileId }
      : { image_url: s.kind === 'base64' ? `data:${s.mediaType};base64,${s.data}` : s.url };
  return { type: 'input_image', ...where, detail: b.detail ?? 'auto' };
}

function documentPart(b: DocumentBlock, notes: Notes): InputPart {
  const s = b.source;
  const named = b.title === undefined ? {} : { filename: b.title };
  switch (s.kind) {
    case 'base64':
      // file_data needs a filename beside it.
      return {
        type: 'input_file',
        file_data: `data:${s.mediaType};base64,${s.data}`,
        filename: b.title ?? (s.mediaType === 'application/pdf' ? 'document.pdf' : 'document'),
      };
    case 'file':
      return { type: 'input_file', file_id: s.fileId, ...named };
    case 'url':
      return { type: 'input_file', file_url: s.url, ...named };
    case 'text':
      notes.add('openai-responses: a plain-text document was sent as a text part');
      return { type: 'input_text', text: s.data };
  }
}

function part(b: ContentBlock, notes: Notes): InputPart | undefined {
  if (b.type === 'text') return { type: 'input_text', text: b.text };
  if (b.type === 'image') return imagePart(b);
  if (b.type === 'document') return documentPart(b, notes);
  notes.add(`openai-responses: dropped a ${b.type} block from a user message`);
  return undefined;
}

function toolOutput(b: ToolResultBlock, notes: Notes): InputItem {
  let output: string | InputPart[];
  if (b.content.every((c) => c.type === 'text')) {
    const t = joinText(b.content as TextBlock[]);
    output = b.isError ? (t === '' ? 'Error' : `Error: ${t}`) : t;
  } else {
    output = b.content.flatMap((c) => part(c, notes) ?? []);
    if (b.isError) output.unshift({ type: 'input_text', text: 'Error:' });
  }
  return { type: 'function_call_output', call_id: b.toolCallId, output };
}

function userItems(m: CanonicalMessage, out: InputItem[], notes: Notes): void {
  const parts: InputPart[] = [];
  for (const b of m.content) {
    if (b.type === 'tool_result') out.push(toolOutput(b, notes));
    else {
      const p = part(b, notes);
      if (p) parts.push(p);
    }
  }
  if (parts.length > 0) out.push({ type: 'message', role: 'user', content: parts });
}

function assistantItems(m: CanonicalMessage, out: InputItem[], notes: Notes): void {
  let message: Extract<InputItem, { role: 'assistant' }> | undefined;
  for (const b of m.content) {
    if (b.type === 'text') {
      if (b.text === '') continue;
      // A message has one phase: text of another phase starts the next one.
      if (!message || message.phase !== b.phase)
        out.push(
          (message = { type: 'message', role: 'assistant', content: [], ...(b.phase ? { phase: b.phase } : {}) }),
        );
      message.content.push({ type: 'output_text', text: b.text });
      continue;
    }
    message = undefined;
    if (b.type === 'compaction') {
      out.push({ type: 'compaction', encrypted_content: b.data });
    } else if (b.type === 'tool_call') {
      if (b.signature)
        notes.add(`openai-responses: dropped the ${b.signatureFamily ?? 'unknown'} signature of tool call ${b.id}`);
      out.push({ type: 'function_call', call_id: b.id, name: b.name, arguments: JSON.stringify(b.input) });
    } else if (b.type === 'thinking' && b.family === 'openai' && b.signature) {
      out.push({
        type: 'reasoning',
        summary: b.text === '' ? [] : [{ type: 'summary_text', text: b.text }],
        encrypted_content: b.signature,
      });
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      // Signatures verify only within the family that made them (docs/protocols.md §6.6).
      notes.add(
        `openai-responses: dropped a ${b.type} block from ${b.family ?? 'an unknown provider'}${b.type === 'thinking' && !b.signature ? ' (unsigned)' : ''}`,
      );
    } else notes.add(`openai-responses: dropped a ${b.type} block from an assistant message`);
  }
}

function developerItem(m: CanonicalMessage, notes: Notes): InputItem {
  const texts = m.content.filter((b): b is TextBlock => b.type === 'text');
  if (texts.length < m.content.length) notes.add('openai-responses: dropped non-text blocks from a system message');
  return { type: 'message', role: 'developer', content: texts.map((b) => ({ type: 'input_text', text: b.text })) };
}

function toolFields(req: CanonicalRequest, body: ResponsesRequestBody): void {
  // tool_choice and parallel_tool_calls mean nothing without tools.
  if (req.tools.length === 0) return;
  body.tools = req.tools.map((t) => ({
    type: 'function',
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    parameters: t.inputSchema,
    strict: t.strict ?? false,
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
          : { type: 'function', name: c.name };
  if (c.type !== 'none' && c.disableParallel) body.parallel_tool_calls = false;
}

export function toRequest(req: CanonicalRequest): ResponsesUpstreamRequest {
  const notes: Notes = new Set();
  const input: InputItem[] = [];
  for (const m of req.messages) {
    if (m.role === 'user') userItems(m, input, notes);
    else if (m.role === 'assistant') assistantItems(m, input, notes);
    else input.push(developerItem(m, notes));
  }
  const body: ResponsesRequestBody = { model: req.model, input, store: false };
  if (req.contextManagement?.family === 'openai')
    body.context_management = req.contextManagement.value as ResponsesRequestBody['context_management'];
  const instructions = joinText(req.system);
  if (instructions !== '') body.instructions = instructions;
  toolFields(req, body);
  if (req.maxOutputTokens !== undefined) {
    body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, req.maxOutputTokens);
    if (body.max_output_tokens !== req.maxOutputTokens)
      notes.add(
        `openai-responses: max_output_tokens ${req.maxOutputTokens} raised to ${MIN_OUTPUT_TOKENS}, the upstream's minimum`,
      );
  }
  const effort = effortOf(req);
  if (effort) body.reasoning = { effort };
  if (effort || input.some((i) => i.type === 'reasoning')) body.include = ['reasoning.encrypted_content'];
  const f = req.responseFormat;
  if (f)
    body.text = {
      format:
        f.type === 'json_schema'
          ? {
              type: 'json_schema',
              name: f.name,
              schema: f.schema,
              ...(f.strict !== undefined ? { strict: f.strict } : {}),
            }
          : { type: f.type },
    };
  // OpenAI's range is 0–2; a value from another protocol's scale is clamped, not refused.
  if (req.temperature !== undefined) body.temperature = Math.min(2, Math.max(0, req.temperature));
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.user !== undefined) body.user = req.user;
  // The client's cache key, so its requests keep landing on the same OpenAI prompt cache.
  if (req.promptCacheKey !== undefined) body.prompt_cache_key = req.promptCacheKey;
  if (req.stream) body.stream = true;
  for (const [name, value] of [
    ['stop sequences', req.stopSequences?.length ? req.stopSequences : undefined],
    ['top_k', req.topK],
    ['seed', req.seed],
    ['presence_penalty', req.presencePenalty],
    ['frequency_penalty', req.frequencyPenalty],
  ] as const) {
    if (value !== undefined) notes.add(`openai-responses: dropped ${name} (Responses has no such parameter)`);
  }
  return { path: '/responses', headers: {}, body, notes: [...notes] };
}
