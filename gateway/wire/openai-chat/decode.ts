/**
 * OpenAI Chat Completions request → canonical. Used when the client speaks OpenAI chat but the
 * line's upstream does not (same protocol on both sides takes the pass-through path instead).
 *
 * Decisions (see docs/protocols.md §1 and §6):
 * - Leading system/developer messages become `system` blocks, one per message (one per text part
 *   when the content is an array); later ones stay in place as canonical `system` messages.
 * - `input_audio` parts are refused with a 400: the canonical model has no audio block, and a
 *   placeholder would have the model answer as if it had heard nothing.
 * - `file` parts become document blocks (`file_data` data URI → base64, `file_id` → file source).
 * - An assistant `refusal` (field or part) is what the model said: it becomes a text block.
 * - Consecutive `tool` messages become one user message of tool_result blocks; the tool name is
 *   looked up from the earlier assistant tool call with the same id.
 * - The legacy function-calling format (`functions`, `function_call`, role `function`) is refused
 *   with a 400 naming its replacement, since it has no ids to pair calls with results.
 * - `n` other than 1 is refused: no other protocol returns several choices.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  ReasoningEffort,
  ResponseFormat,
  TextBlock,
  Thinking,
  ToolCallBlock,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
} from '../../core/canonical.js';
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { isObject as isObj } from '../../core/json.js';
import { parseToolArguments } from '../../core/json.js';

type Obj = Record<string, unknown>;

/** `data:<mime>[;params];base64,<data>` → its parts; anything else (a URL, a non-base64 data URI) → undefined. */
export function parseDataUri(uri: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+)[^,]*;base64,(.*)$/s.exec(uri);
  return m ? { mediaType: m[1]!, data: m[2]! } : undefined;
}

function text(t: string): TextBlock {
  return { type: 'text', text: t };
}

function numberField(v: unknown, param: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw invalidRequest(`${param} must be a number.`, param, 'invalid_type');
  return v;
}

/** System, developer and text-only content: a string or an array of text parts. */
function textContent(content: unknown, param: string): TextBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content))
    throw invalidRequest(`${param} must be a string or an array of text parts.`, param, 'invalid_type');
  return content.map((p, j) => {
    if (!isObj(p) || p.type !== 'text' || typeof p.text !== 'string')
      throw invalidRequest(`${param}[${j}] must be a text part.`, `${param}[${j}]`);
    return text(p.text);
  });
}

function imageBlock(p: Obj, param: string): ImageBlock {
  const img = p.image_url;
  if (!isObj(img) || typeof img.url !== 'string')
    throw invalidRequest(`${param}.image_url.url must be a string.`, `${param}.image_url.url`, 'invalid_type');
  const data = parseDataUri(img.url);
  const block: ImageBlock = {
    type: 'image',
    source: data ? { kind: 'base64', ...data } : { kind: 'url', url: img.url },
  };
  if (img.detail === 'auto' || img.detail === 'low' || img.detail === 'high') block.detail = img.detail;
  return block;
}

function documentBlock(p: Obj, param: string): DocumentBlock {
  const f = p.file;
  if (!isObj(f)) throw invalidRequest(`${param}.file must be an object.`, `${param}.file`, 'invalid_type');
  let block: DocumentBlock;
  if (typeof f.file_id === 'string') block = { type: 'document', source: { kind: 'file', fileId: f.file_id } };
  else if (typeof f.file_data === 'string') {
    // OpenAI documents a data URI here; raw base64 is accepted as PDF, the only file type chat takes.
    const data = parseDataUri(f.file_data) ?? { mediaType: 'application/pdf', data: f.file_data };
    block = { type: 'document', source: { kind: 'base64', ...data } };
  } else throw invalidRequest(`${param}.file needs file_id or file_data.`, `${param}.file`);
  if (typeof f.filename === 'string') block.title = f.filename;
  return block;
}

function userContent(content: unknown, param: string): ContentBlock[] {
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content))
    throw invalidRequest(`${param} must be a string or an array of content parts.`, param, 'invalid_type');
  return content.map((p, j): ContentBlock => {
    const pp = `${param}[${j}]`;
    if (!isObj(p)) throw invalidRequest(`${pp} must be an object.`, pp, 'invalid_type');
    if (p.type === 'text' && typeof p.text === 'string') return text(p.text);
    if (p.type === 'image_url') return imageBlock(p, pp);
    if (p.type === 'file') return documentBlock(p, pp);
    if (p.type === 'input_audio')
      throw invalidRequest(
        `${pp}: audio input cannot be translated for this model's upstream; send text, images or files.`,
        pp,
        'unsupported_value',
      );
    throw invalidRequest(`${pp}: unsupported content part type ${JSON.stringify(p.type)}.`, pp);
  });
}

/** A tool call's Gemini thought signature, where Gemini's OpenAI-compatible endpoint and encode.ts put it. */
function geminiSignature(extra: unknown): string | undefined {
  const google = isObj(extra) ? extra.google : undefined;
  const s = isObj(google) ? google.thought_signature : undefined;
  return typeof s === 'string' && s !== '' ? s : undefined;
}

function assistantContent(m: Obj, param: string, toolNames: Map<string, string>, notes: Set<string>): ContentBlock[] {
  if (m.function_call !== undefined && m.function_call !== null) throw legacy(`${param}.function_call`);
  const blocks: ContentBlock[] = [];
  if (typeof m.content === 'string') {
    if (m.content !== '') blocks.push(text(m.content));
  } else if (Array.isArray(m.content)) {
    m.content.forEach((p, j) => {
      if (isObj(p) && p.type === 'text' && typeof p.text === 'string') {
        if (p.text !== '') blocks.push(text(p.text));
      } else if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string') blocks.push(text(p.refusal));
      else throw invalidRequest(`${param}.content[${j}] must be a text or refusal part.`, `${param}.content[${j}]`);
    });
  } else if (m.content !== undefined && m.content !== null)
    throw invalidRequest(`${param}.content must be a string, an array or null.`, `${param}.content`, 'invalid_type');
  if (typeof m.refusal === 'string' && m.refusal !== '') blocks.push(text(m.refusal));
  // The reasoning Tollgate or a DeepSeek-style server gave with this turn (encode.ts); it goes first, as it came first.
  if (typeof m.reasoning_content === 'string' && m.reasoning_content !== '')
    blocks.unshift({ type: 'thinking', text: m.reasoning_content, family: 'openai-chat' });
  if (m.tool_calls === undefined || m.tool_calls === null) return blocks;
  if (!Array.isArray(m.tool_calls))
    throw invalidRequest(`${param}.tool_calls must be an array.`, `${param}.tool_calls`, 'invalid_type');
  m.tool_calls.forEach((c, j) => {
    const pc = `${param}.tool_calls[${j}]`;
    if (isObj(c) && c.type === 'custom') {
      notes.add('dropped custom (free-form) tool calls from the history: only function tools translate');
      return;
    }
    if (!isObj(c) || typeof c.id !== 'string' || !isObj(c.function) || typeof c.function.name !== 'string') {
      throw invalidRequest(`${pc} must be {id, type:"function", function:{name, arguments}}.`, pc);
    }
    const call: ToolCallBlock = {
      type: 'tool_call',
      id: c.id,
      name: c.function.name,
      input: parseToolArguments(c.function.arguments, `${pc}.function.arguments`),
    };
    const signature = geminiSignature(c.extra_content);
    if (signature) Object.assign(call, { signature, signatureFamily: 'gemini' });
    toolNames.set(call.id, call.name);
    blocks.push(call);
  });
  return blocks;
}

function toolResult(m: Obj, param: string, toolNames: Map<string, string>): ToolResultBlock {
  if (typeof m.tool_call_id !== 'string')
    throw invalidRequest(`${param}.tool_call_id must be a string.`, `${param}.tool_call_id`, 'invalid_type');
  let content: (TextBlock | ImageBlock)[];
  if (typeof m.content === 'string') content = m.content === '' ? [] : [text(m.content)];
  else if (Array.isArray(m.content)) {
    content = m.content.map((p, j) => {
      const pp = `${param}.content[${j}]`;
      if (isObj(p) && p.type === 'text' && typeof p.text === 'string') return text(p.text);
      if (isObj(p) && p.type === 'image_url') return imageBlock(p, pp);
      throw invalidRequest(`${pp} must be a text part.`, pp);
    });
  } else content = [];
  const block: ToolResultBlock = { type: 'tool_result', toolCallId: m.tool_call_id, content };
  const name = toolNames.get(m.tool_call_id);
  if (name !== undefined) block.name = name;
  return block;
}

function legacy(param: string): GatewayError {
  return invalidRequest(
    'The deprecated function-calling format (functions, function_call, role "function") cannot be translated; use tools, tool_choice and role "tool" messages.',
    param,
    'unsupported_parameter',
  );
}

function decodeMessages(raw: unknown, notes: Set<string>): { system: TextBlock[]; messages: CanonicalMessage[] } {
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalidRequest('messages must be a non-empty array.', 'messages', 'invalid_type');
  const system: TextBlock[] = [];
  const messages: CanonicalMessage[] = [];
  const toolNames = new Map<string, string>();
  let toolTurn: CanonicalMessage | undefined;
  raw.forEach((m, i) => {
    const p = `messages[${i}]`;
    if (!isObj(m)) throw invalidRequest(`${p} must be an object.`, p, 'invalid_type');
    if (m.role !== 'tool') toolTurn = undefined;
    switch (m.role) {
      case 'system':
      case 'developer':
        if (messages.length === 0) system.push(...textContent(m.content, `${p}.content`));
        else messages.push({ role: 'system', content: textContent(m.content, `${p}.content`) });
        break;
      case 'user':
        messages.push({ role: 'user', content: userContent(m.content, `${p}.content`) });
        break;
      case 'assistant':
        messages.push({ role: 'assistant', content: assistantContent(m, p, toolNames, notes) });
        break;
      case 'tool': {
        const block = toolResult(m, p, toolNames);
        if (toolTurn) toolTurn.content.push(block);
        else messages.push((toolTurn = { role: 'user', content: [block] }));
        break;
      }
      case 'function':
        throw legacy(`${p}.role`);
      default:
        throw invalidRequest(`${p}.role ${JSON.stringify(m.role)} is not a chat message role.`, `${p}.role`);
    }
  });
  return { system, messages };
}

function decodeTools(raw: unknown, notes: Set<string>): ToolDefinition[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest('tools must be an array.', 'tools', 'invalid_type');
  const out: ToolDefinition[] = [];
  raw.forEach((t, j) => {
    if (!isObj(t) || t.type !== 'function') {
      notes.add(`dropped a tool of type ${JSON.stringify(isObj(t) ? t.type : t)}: only function tools translate`);
      return;
    }
    const fn = t.function;
    if (!isObj(fn) || typeof fn.name !== 'string')
      throw invalidRequest(`tools[${j}].function.name must be a string.`, `tools[${j}].function.name`, 'invalid_type');
    const def: ToolDefinition = {
      name: fn.name,
      inputSchema: isObj(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
    };
    if (typeof fn.description === 'string') def.description = fn.description;
    if (typeof fn.strict === 'boolean') def.strict = fn.strict;
    out.push(def);
  });
  return out;
}

function decodeToolChoice(raw: unknown, parallel: unknown, notes: Set<string>): ToolChoice | undefined {
  let choice: Exclude<ToolChoice, { type: 'none' }> | undefined;
  if (raw === 'none') return { type: 'none' };
  if (raw === 'auto') choice = { type: 'auto' };
  else if (raw === 'required') choice = { type: 'any' };
  else if (isObj(raw) && raw.type === 'function' && isObj(raw.function) && typeof raw.function.name === 'string')
    choice = { type: 'tool', name: raw.function.name };
  else if (isObj(raw) && raw.type === 'allowed_tools' && isObj(raw.allowed_tools)) {
    notes.add('tool_choice allowed_tools: the allowed list is not carried, only its mode');
    choice = { type: raw.allowed_tools.mode === 'required' ? 'any' : 'auto' };
  } else if (raw !== undefined && raw !== null)
    throw invalidRequest(
      'tool_choice must be "none", "auto", "required" or {type:"function", function:{name}}.',
      'tool_choice',
    );
  if (parallel === false) return { ...(choice ?? { type: 'auto' }), disableParallel: true };
  return choice;
}

function decodeResponseFormat(raw: unknown): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObj(raw)) throw invalidRequest('response_format must be an object.', 'response_format', 'invalid_type');
  if (raw.type === 'text' || raw.type === 'json_object') return { type: raw.type };
  if (raw.type === 'json_schema' && isObj(raw.json_schema) && typeof raw.json_schema.name === 'string') {
    const js = raw.json_schema;
    const out: ResponseFormat = {
      type: 'json_schema',
      name: js.name as string,
      schema: isObj(js.schema) ? js.schema : {},
    };
    if (typeof js.strict === 'boolean') out.strict = js.strict;
    return out;
  }
  throw invalidRequest(
    'response_format must be {type:"text"}, {type:"json_object"} or {type:"json_schema", json_schema:{name, schema}}.',
    'response_format',
  );
}

/** OpenAI's wider effort scale onto the canonical one: `none` turns thinking off, above `high` is `high`. */
function decodeEffort(raw: unknown, notes: Set<string>): { reasoningEffort?: ReasoningEffort; thinking?: Thinking } {
  if (raw === undefined || raw === null) return {};
  if (raw === 'none') return { thinking: { type: 'disabled' } };
  if (raw === 'minimal' || raw === 'low' || raw === 'medium' || raw === 'high') return { reasoningEffort: raw };
  if (raw === 'xhigh' || raw === 'max') {
    notes.add(`reasoning_effort "${raw}" sent as "high"`);
    return { reasoningEffort: 'high' };
  }
  throw invalidRequest('reasoning_effort must be one of none, minimal, low, medium, high, xhigh.', 'reasoning_effort');
}

/** Numeric fields copied as they are: wire name → canonical name. */
const NUMBERS = {
  temperature: 'temperature',
  top_p: 'topP',
  seed: 'seed',
  presence_penalty: 'presencePenalty',
  frequency_penalty: 'frequencyPenalty',
} as const;

function decodeStop(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return [raw];
  if (!Array.isArray(raw) || !raw.every((s) => typeof s === 'string'))
    throw invalidRequest('stop must be a string or an array of strings.', 'stop', 'invalid_type');
  return raw.length > 0 ? (raw as string[]) : undefined;
}

/** Fields with no canonical counterpart that change nothing the client gets back; each one present is logged as a note. */
const UNCARRIED = ['logit_bias', 'prediction', 'web_search_options'] as const;

/** Output asked for that the canonical model cannot bring back (refused on the translated path, relay/translate.ts). */
function uncarriedOutputs(body: Obj): { param: string; what: string }[] {
  const out: { param: string; what: string }[] = [];
  if (Array.isArray(body.modalities) && body.modalities.includes('audio'))
    out.push({ param: 'modalities', what: 'audio output' });
  else if (body.audio !== undefined && body.audio !== null) out.push({ param: 'audio', what: 'audio output' });
  if (body.logprobs === true) out.push({ param: 'logprobs', what: 'log probabilities' });
  else if (body.top_logprobs !== undefined && body.top_logprobs !== null)
    out.push({ param: 'top_logprobs', what: 'log probabilities' });
  return out;
}

export function decodeRequest(body: unknown): CanonicalRequest {
  if (!isObj(body)) throw invalidRequest('The request body must be a JSON object.', 'body', 'invalid_type');
  if (typeof body.model !== 'string' || body.model === '')
    throw invalidRequest('model must be a non-empty string.', 'model', 'invalid_type');
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw invalidRequest(
      'n other than 1 is not supported: this model is served through another protocol, which returns a single choice.',
      'n',
      'unsupported_value',
    );
  if (body.functions !== undefined || body.function_call !== undefined)
    throw legacy(body.functions !== undefined ? 'functions' : 'function_call');
  const notes = new Set<string>();
  const { system, messages } = decodeMessages(body.messages, notes);
  const tools = decodeTools(body.tools, notes);
  const req: CanonicalRequest = { model: body.model, system, messages, tools, stream: body.stream === true, notes: [] };
  const toolChoice = decodeToolChoice(body.tool_choice, body.parallel_tool_calls, notes);
  if (toolChoice) req.toolChoice = toolChoice;
  const maxOut =
    numberField(body.max_completion_tokens, 'max_completion_tokens') ?? numberField(body.max_tokens, 'max_tokens');
  if (maxOut !== undefined) req.maxOutputTokens = maxOut;
  for (const [wire, key] of Object.entries(NUMBERS)) {
    const v = numberField(body[wire], wire);
    if (v !== undefined) req[key] = v;
  }
  const stop = decodeStop(body.stop);
  if (stop) req.stopSequences = stop;
  // `safety_identifier` is OpenAI's newer name for the end-user id.
  const user = [body.user, body.safety_identifier].find((u) => typeof u === 'string');
  if (typeof user === 'string') req.user = user;
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '')
    req.promptCacheKey = body.prompt_cache_key;
  Object.assign(req, decodeEffort(body.reasoning_effort, notes));
  const format = decodeResponseFormat(body.response_format);
  if (format) req.responseFormat = format;
  for (const k of UNCARRIED)
    if (body[k] !== undefined && body[k] !== null && body[k] !== false)
      notes.add(`${k} is not carried to this upstream`);
  const outputs = uncarriedOutputs(body);
  if (outputs.length > 0) req.uncarriedOutputs = outputs;
  req.notes = [...notes];
  return req;
}
