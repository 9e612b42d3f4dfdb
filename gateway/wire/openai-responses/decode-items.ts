/**
 * Responses `input` items → canonical messages (docs/protocols.md §3, §6).
 *
 * - A message item may omit `type` when it has a `role` (the SDK's EasyInputMessage).
 * - Leading system/developer items become `system` blocks; later ones stay in place as canonical
 *   `system` messages. Only their text parts are kept (a note says when others are dropped).
 * - Assistant messages, reasoning items and function_call items that follow one another are one
 *   model turn, so they merge into one assistant message in item order: Responses splits a turn
 *   into items ([reasoning, message, function_call…]) where canonical keeps blocks.
 * - `call_id` is the canonical tool-call id; item ids (`msg_…`, `fc_…`, `fco_…` from Codex, or the
 *   server's own) are accepted and ignored: they mean nothing to another upstream.
 * - Consecutive function_call_output items become one user message of tool_result blocks, named
 *   after the earlier call with the same call_id.
 * - A reasoning item becomes a thinking block of family 'openai': its summary text is the text and
 *   its `encrypted_content` the signature, which only an OpenAI Responses upstream can read back.
 *   An `encrypted_content` with Tollgate's mark (core/reasoning.ts) is another family's reasoning
 *   that Tollgate gave the client: it becomes that family's block again (a tool call's signature
 *   goes back on its call).
 * - An assistant message's `phase` (commentary or final answer) goes on its text blocks.
 * - A `compaction` item (`compaction_summary` in older clients) is a compaction block of the
 *   assistant side, its `encrypted_content` readable by OpenAI alone (docs/protocols.md §3.1).
 * - Item types that only OpenAI can run (web_search_call, local_shell_call, custom_tool_call,
 *   item_reference…) are dropped with a note.
 */
import type {
  CanonicalMessage,
  CompactionBlock,
  ContentBlock,
  Phase,
  DocumentBlock,
  ImageBlock,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../../core/canonical.js';
import { invalidRequest } from '../../core/errors.js';
import { isObject as isObj, type JsonObject as Obj } from '../../core/json.js';
import { isMarked, thinkingFrom, unmark } from '../../core/reasoning.js';
import { parseDataUri } from '../openai-chat/decode.js';
import { parseToolArguments } from '../../core/json.js';

const text = (t: string): TextBlock => ({ type: 'text', text: t });
const partType = (p: unknown): string => JSON.stringify(isObj(p) ? p.type : p);

function image(p: Obj, param: string): ImageBlock {
  let block: ImageBlock;
  if (typeof p.image_url === 'string') {
    const data = parseDataUri(p.image_url);
    block = { type: 'image', source: data ? { kind: 'base64', ...data } : { kind: 'url', url: p.image_url } };
  } else if (typeof p.file_id === 'string') block = { type: 'image', source: { kind: 'file', fileId: p.file_id } };
  else throw invalidRequest(`${param} needs image_url or file_id.`, param);
  // `original` (keep the full resolution) has no canonical counterpart: the upstream's default applies.
  if (p.detail === 'auto' || p.detail === 'low' || p.detail === 'high') block.detail = p.detail;
  return block;
}

function file(p: Obj, param: string): DocumentBlock {
  let block: DocumentBlock;
  if (typeof p.file_id === 'string') block = { type: 'document', source: { kind: 'file', fileId: p.file_id } };
  else if (typeof p.file_data === 'string') {
    // OpenAI documents a data URI here; raw base64 is read as PDF, the file type Responses takes inline.
    block = {
      type: 'document',
      source: { kind: 'base64', ...(parseDataUri(p.file_data) ?? { mediaType: 'application/pdf', data: p.file_data }) },
    };
  } else if (typeof p.file_url === 'string') block = { type: 'document', source: { kind: 'url', url: p.file_url } };
  else throw invalidRequest(`${param} needs file_id, file_data or file_url.`, param);
  if (typeof p.filename === 'string') block.title = p.filename;
  return block;
}

/** User content, and the parts of a function_call_output array. */
function inputParts(content: unknown, param: string): (TextBlock | ImageBlock | DocumentBlock)[] {
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content))
    throw invalidRequest(`${param} must be a string or an array of content parts.`, param, 'invalid_type');
  return content.map((p, j) => {
    const pp = `${param}[${j}]`;
    if (!isObj(p)) throw invalidRequest(`${pp} must be an object.`, pp, 'invalid_type');
    if (p.type === 'input_text' && typeof p.text === 'string') return text(p.text);
    if (p.type === 'input_image') return image(p, pp);
    if (p.type === 'input_file') return file(p, pp);
    if (p.type === 'input_audio')
      throw invalidRequest(
        `${pp}: audio input cannot be translated for this model's upstream; send text, images or files.`,
        pp,
        'unsupported_value',
      );
    throw invalidRequest(`${pp}: unsupported content part type ${partType(p)}.`, pp);
  });
}

function systemParts(content: unknown, param: string, notes: Set<string>): TextBlock[] {
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content))
    throw invalidRequest(`${param} must be a string or an array of content parts.`, param, 'invalid_type');
  return content.flatMap((p) => {
    if (isObj(p) && p.type === 'input_text' && typeof p.text === 'string') return [text(p.text)];
    notes.add(
      `openai-responses: dropped a ${partType(p)} part from a system/developer message: only text is carried there`,
    );
    return [];
  });
}

function assistantParts(content: unknown, param: string, phase: Phase | undefined): TextBlock[] {
  const withPhase = (b: TextBlock): TextBlock => (phase ? { ...b, phase } : b);
  return assistantText(content, param).map(withPhase);
}

function assistantText(content: unknown, param: string): TextBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [text(content)];
  if (!Array.isArray(content))
    throw invalidRequest(`${param} must be a string or an array of content parts.`, param, 'invalid_type');
  return content.flatMap((p, j) => {
    const pp = `${param}[${j}]`;
    // The SDK's EasyInputMessage lets an assistant message carry input_text parts too.
    if (isObj(p) && (p.type === 'output_text' || p.type === 'input_text') && typeof p.text === 'string')
      return p.text === '' ? [] : [text(p.text)];
    // A refusal is what the model said.
    if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string') return [text(p.refusal)];
    throw invalidRequest(`${pp} must be an output_text or refusal part.`, pp);
  });
}

function requiredString(v: unknown, param: string): string {
  if (typeof v !== 'string' || v === '')
    throw invalidRequest(`${param} must be a non-empty string.`, param, 'invalid_type');
  return v;
}

function toolCall(item: Obj, param: string): ToolCallBlock {
  const id = requiredString(item.call_id, `${param}.call_id`);
  return {
    type: 'tool_call',
    id,
    name: requiredString(item.name, `${param}.name`),
    input: parseToolArguments(item.arguments, `${param}.arguments`),
  };
}

function toolResult(item: Obj, param: string, names: Map<string, string>): ToolResultBlock {
  const id = requiredString(item.call_id, `${param}.call_id`);
  const content = item.output === '' ? [] : inputParts(item.output, `${param}.output`);
  const block: ToolResultBlock = { type: 'tool_result', toolCallId: id, content };
  const name = names.get(id);
  if (name !== undefined) block.name = name;
  return block;
}

function summaryText(parts: unknown, kind: string): string {
  if (!Array.isArray(parts)) return '';
  return parts.flatMap((p) => (isObj(p) && p.type === kind && typeof p.text === 'string' ? [p.text] : [])).join('\n\n');
}

/** Signatures of tool calls, by call id, carried in reasoning items (encode.ts). */
type CallSignatures = Map<string, { signature: string; family: ToolCallBlock['signatureFamily'] }>;

function thinking(
  item: Obj,
  calls: CallSignatures,
  notes: Set<string>,
): ThinkingBlock | RedactedThinkingBlock | undefined {
  // Models that show their raw reasoning (gpt-oss) send `content` reasoning_text instead of a summary.
  const t = summaryText(item.summary, 'summary_text') || summaryText(item.content, 'reasoning_text');
  const carried = unmark(item.encrypted_content);
  if (carried?.kind === 'thinking') return thinkingFrom(carried, t);
  if (carried?.kind === 'redacted') return { type: 'redacted_thinking', data: carried.data, family: carried.family };
  if (carried?.kind === 'call') {
    calls.set(carried.callId, { signature: carried.signature, family: carried.family });
    return undefined;
  }
  if (isMarked(item.encrypted_content)) {
    notes.add('openai-responses: a reasoning item with a damaged Tollgate mark was kept unsigned');
    return t === '' ? undefined : { type: 'thinking', text: t };
  }
  const signature =
    typeof item.encrypted_content === 'string' && item.encrypted_content !== '' ? item.encrypted_content : undefined;
  if (t === '' && signature === undefined) {
    notes.add('openai-responses: dropped a reasoning item with neither summary text nor encrypted_content');
    return undefined;
  }
  return signature === undefined
    ? { type: 'thinking', text: t, family: 'openai' }
    : { type: 'thinking', text: t, signature, family: 'openai' };
}

const phaseOf = (v: unknown): Phase | undefined => (v === 'commentary' || v === 'final_answer' ? v : undefined);

function compaction(item: Obj): CompactionBlock | undefined {
  if (typeof item.encrypted_content !== 'string' || item.encrypted_content === '') return undefined;
  const block: CompactionBlock = { type: 'compaction', data: item.encrypted_content, family: 'openai' };
  if (typeof item.id === 'string' && item.id !== '') block.id = item.id;
  return block;
}

export interface DecodedInput {
  system: TextBlock[];
  messages: CanonicalMessage[];
}

/** `input` items (already normalised to an array) → leading system text and canonical messages. */
export function decodeItems(items: readonly unknown[], notes: Set<string>): DecodedInput {
  const system: TextBlock[] = [];
  const messages: CanonicalMessage[] = [];
  const names = new Map<string, string>();
  const signatures: CallSignatures = new Map();
  /** The message that the next assistant-side item or tool result may join. */
  let open: { kind: 'assistant' | 'results'; message: CanonicalMessage } | undefined;
  const join = (kind: 'assistant' | 'results', blocks: ContentBlock[]): void => {
    if (open?.kind === kind) open.message.content.push(...blocks);
    else
      messages.push(
        (open = { kind, message: { role: kind === 'assistant' ? 'assistant' : 'user', content: blocks } }).message,
      );
  };
  items.forEach((item, i) => {
    const p = `input[${i}]`;
    if (!isObj(item)) throw invalidRequest(`${p} must be an object.`, p, 'invalid_type');
    const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined);
    if (type === 'message') {
      const content = `${p}.content`;
      switch (item.role) {
        case 'assistant':
          return join('assistant', assistantParts(item.content, content, phaseOf(item.phase)));
        case 'user':
          open = undefined;
          messages.push({ role: 'user', content: inputParts(item.content, content) });
          return;
        case 'system':
        case 'developer':
          open = undefined;
          if (messages.length === 0) system.push(...systemParts(item.content, content, notes));
          else messages.push({ role: 'system', content: systemParts(item.content, content, notes) });
          return;
        default:
          throw invalidRequest(`${p}.role ${JSON.stringify(item.role)} is not a message role.`, `${p}.role`);
      }
    }
    if (type === 'function_call') {
      const call = toolCall(item, p);
      names.set(call.id, call.name);
      return join('assistant', [call]);
    }
    if (type === 'function_call_output') return join('results', [toolResult(item, p, names)]);
    if (type === 'reasoning') {
      const block = thinking(item, signatures, notes);
      if (block) join('assistant', [block]);
      return;
    }
    if (type === 'compaction' || type === 'compaction_summary') {
      const block = compaction(item);
      if (block) join('assistant', [block]);
      else notes.add('openai-responses: dropped a compaction item without encrypted_content');
      return;
    }
    notes.add(
      `openai-responses: dropped an input item of type ${JSON.stringify(type)}: only messages, function calls and their outputs, and reasoning translate`,
    );
  });
  for (const m of messages) {
    for (const b of m.content) {
      const s = b.type === 'tool_call' ? signatures.get(b.id) : undefined;
      if (b.type === 'tool_call' && s) Object.assign(b, { signature: s.signature, signatureFamily: s.family });
    }
  }
  return { system, messages };
}
