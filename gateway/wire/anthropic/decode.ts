import type {
  CacheControl,
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  MediaSource,
  ReasoningEffort,
  TextBlock,
  Thinking,
  ToolCallBlock,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
} from '../../core/canonical.js';
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import { isMarked, thinkingFrom, unmark } from '../../core/reasoning.js';

type Json = Record<string, unknown>;

/** Messages errors name the field first, as Anthropic's own do. */
function invalid(message: string, param: string): GatewayError {
  return invalidRequest(`${param}: ${message}`, param, 'invalid_request');
}

function string(v: unknown, param: string): string {
  if (typeof v !== 'string') throw invalid('must be a string.', param);
  return v;
}

function cacheControl(v: unknown): CacheControl | undefined {
  if (!isObject(v) || v.type !== 'ephemeral') return undefined;
  return v.ttl === '5m' || v.ttl === '1h' ? { type: 'ephemeral', ttl: v.ttl } : { type: 'ephemeral' };
}

/** Adds `cacheControl` only when the wire block has one, so decoded blocks carry no undefined fields. */
function cached<T extends object>(block: T, wire: Json): T & { cacheControl?: CacheControl } {
  const cc = cacheControl(wire.cache_control);
  if (!cc) return block;
  // A copy, then the field set: a spread followed by properties is V8's slow path (relay/respond.ts answerHeaders).
  const out: T & { cacheControl?: CacheControl } = { ...block };
  out.cacheControl = cc;
  return out;
}

function text(b: Json, param: string): TextBlock {
  const block: TextBlock = { type: 'text', text: string(b.text, `${param}.text`) };
  if (Array.isArray(b.citations)) block.citations = b.citations;
  return cached(block, b);
}

function media(s: unknown, param: string): MediaSource {
  if (!isObject(s)) throw invalid('must be an object.', param);
  switch (s.type) {
    case 'base64':
      return {
        kind: 'base64',
        mediaType: string(s.media_type, `${param}.media_type`),
        data: string(s.data, `${param}.data`),
      };
    case 'url':
      return { kind: 'url', url: string(s.url, `${param}.url`) };
    case 'file':
      return { kind: 'file', fileId: string(s.file_id, `${param}.file_id`) };
    default:
      throw invalid(`unsupported source type ${JSON.stringify(s.type)}.`, `${param}.type`);
  }
}

function image(b: Json, param: string): ImageBlock {
  return cached({ type: 'image', source: media(b.source, `${param}.source`) }, b);
}

function document(b: Json, param: string, notes: string[]): DocumentBlock {
  const s = b.source;
  let source: DocumentBlock['source'];
  if (isObject(s) && s.type === 'text') {
    source = {
      kind: 'text',
      mediaType: typeof s.media_type === 'string' ? s.media_type : 'text/plain',
      data: string(s.data, `${param}.source.data`),
    };
  } else if (isObject(s) && s.type === 'content') {
    // A "custom content" document has no canonical form; its text survives as plain text.
    const parts =
      typeof s.content === 'string'
        ? [s.content]
        : Array.isArray(s.content)
          ? s.content.flatMap((c) => (isObject(c) && c.type === 'text' && typeof c.text === 'string' ? [c.text] : []))
          : [];
    source = { kind: 'text', mediaType: 'text/plain', data: parts.join('\n\n') };
    notes.push('anthropic: a content-source document was flattened to plain text');
  } else {
    source = media(s, `${param}.source`);
  }
  const block: DocumentBlock = { type: 'document', source };
  if (typeof b.title === 'string') block.title = b.title;
  return cached(block, b);
}

function toolResult(b: Json, param: string, notes: string[]): ToolResultBlock {
  const content: ToolResultBlock['content'] = [];
  if (typeof b.content === 'string') {
    if (b.content !== '') content.push({ type: 'text', text: b.content });
  } else if (Array.isArray(b.content)) {
    b.content.forEach((c: unknown, i) => {
      const at = `${param}.content.${i}`;
      if (isObject(c) && c.type === 'text') content.push(text(c, at));
      else if (isObject(c) && c.type === 'image') content.push(image(c, at));
      // Canonical tool results hold text and images only (a PDF read by Claude Code's Read tool is a document here).
      else notes.push(`anthropic: dropped a ${isObject(c) ? String(c.type) : 'malformed'} block from a tool_result`);
    });
  } else if (b.content !== undefined) {
    throw invalid('must be a string or an array of blocks.', `${param}.content`);
  }
  const block: ToolResultBlock = {
    type: 'tool_result',
    toolCallId: string(b.tool_use_id, `${param}.tool_use_id`),
    content,
  };
  if (typeof b.is_error === 'boolean') block.isError = b.is_error;
  return cached(block, b);
}

function block(b: unknown, param: string, notes: string[]): ContentBlock | undefined {
  if (!isObject(b)) throw invalid('must be a content block object.', param);
  switch (b.type) {
    case 'text':
      return text(b, param);
    case 'image':
      return image(b, param);
    case 'document':
      return document(b, param, notes);
    case 'tool_use': {
      // Empty tool input is {} (docs/protocols.md §6.10).
      const call: ToolCallBlock = {
        type: 'tool_call',
        id: string(b.id, `${param}.id`),
        name: string(b.name, `${param}.name`),
        input: isObject(b.input) ? b.input : {},
      };
      return cached(call, b);
    }
    case 'tool_result':
      return toolResult(b, param, notes);
    case 'thinking': {
      const t = string(b.thinking, `${param}.thinking`);
      // Tollgate's mark: another family's reasoning, carried for its own upstream (core/reasoning.ts).
      const carried = unmark(b.signature);
      if (carried?.kind === 'thinking') return thinkingFrom(carried, t);
      if (isMarked(b.signature)) {
        notes.push('anthropic: a thinking block with a damaged Tollgate mark was kept unsigned');
        return { type: 'thinking', text: t };
      }
      return typeof b.signature === 'string' && b.signature !== ''
        ? { type: 'thinking', text: t, signature: b.signature, family: 'anthropic' }
        : { type: 'thinking', text: t, family: 'anthropic' };
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: string(b.data, `${param}.data`), family: 'anthropic' };
    default:
      // server_tool_use, web_search_tool_result, search_result, container_upload…: only an Anthropic upstream understands them.
      notes.push(`anthropic: dropped a ${String(b.type)} block`);
      return undefined;
  }
}

/** A thinking block Tollgate added to carry a tool call's signature (encode.ts), rather than reasoning. */
function callCarrier(
  b: unknown,
): { callId: string; signature: string; family: ToolCallBlock['signatureFamily'] } | undefined {
  const carried = isObject(b) && b.type === 'thinking' ? unmark(b.signature) : undefined;
  return carried?.kind === 'call'
    ? { callId: carried.callId, signature: carried.signature, family: carried.family }
    : undefined;
}

function content(v: unknown, param: string, notes: string[]): ContentBlock[] {
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  if (!Array.isArray(v)) throw invalid('must be a string or an array of content blocks.', param);
  const signatures = new Map<string, { signature: string; family: ToolCallBlock['signatureFamily'] }>();
  const blocks = v.flatMap((b: unknown, i) => {
    const carrier = callCarrier(b);
    if (carrier) {
      signatures.set(carrier.callId, carrier);
      return [];
    }
    return block(b, `${param}.${i}`, notes) ?? [];
  });
  for (const b of blocks) {
    const s = b.type === 'tool_call' ? signatures.get(b.id) : undefined;
    if (b.type === 'tool_call' && s) Object.assign(b, { signature: s.signature, signatureFamily: s.family });
  }
  return blocks;
}

function systemText(v: unknown, param: string): TextBlock[] {
  if (v === undefined || v === null || v === '') return [];
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  if (!Array.isArray(v)) throw invalid('must be a string or an array of text blocks.', param);
  return v.map((b: unknown, i) => {
    if (!isObject(b) || b.type !== 'text') throw invalid('must be a text block.', `${param}.${i}`);
    return text(b, `${param}.${i}`);
  });
}

function tools(v: unknown, notes: string[]): ToolDefinition[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid('must be an array.', 'tools');
  return v.flatMap((t: unknown, i): ToolDefinition[] => {
    if (!isObject(t)) throw invalid('must be an object.', `tools.${i}`);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      // Typed server tools run on Anthropic's side; no other upstream can run them (docs/protocols.md §6.8).
      notes.push(`anthropic: dropped server tool ${JSON.stringify(t.name)} (${String(t.type)})`);
      return [];
    }
    if (!isObject(t.input_schema)) throw invalid('must be a JSON Schema object.', `tools.${i}.input_schema`);
    const def: ToolDefinition = { name: string(t.name, `tools.${i}.name`), inputSchema: t.input_schema };
    if (typeof t.description === 'string') def.description = t.description;
    if (typeof t.strict === 'boolean') def.strict = t.strict;
    return [cached(def, t)];
  });
}

function toolChoice(v: unknown): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalid('must be an object.', 'tool_choice');
  const parallel =
    typeof v.disable_parallel_tool_use === 'boolean' ? { disableParallel: v.disable_parallel_tool_use } : {};
  switch (v.type) {
    case 'auto':
    case 'any':
      return { type: v.type, ...parallel };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', name: string(v.name, 'tool_choice.name'), ...parallel };
    default:
      throw invalid(`unknown type ${JSON.stringify(v.type)}.`, 'tool_choice.type');
  }
}

function thinking(v: unknown, notes: string[]): Thinking | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalid('must be an object.', 'thinking');
  if (v.type === 'enabled') {
    if (typeof v.budget_tokens !== 'number') throw invalid('must be a number.', 'thinking.budget_tokens');
    return { type: 'enabled', budgetTokens: v.budget_tokens };
  }
  if (v.type === 'disabled' || v.type === 'adaptive') return { type: v.type };
  notes.push(`anthropic: dropped thinking type ${JSON.stringify(v.type)}`);
  return undefined;
}

/** Messages effort levels → canonical; `xhigh` and `max` have no canonical level above `high`. */
function effort(v: unknown, notes: string[]): ReasoningEffort | undefined {
  if (v === 'low' || v === 'medium' || v === 'high') return v;
  if (v === 'xhigh' || v === 'max') {
    notes.push(`anthropic: effort "${v}" sent as "high"`);
    return 'high';
  }
  return undefined;
}

/** Top-level fields that only an Anthropic upstream understands; the translated request goes without them. */
const UNCARRIED = [
  'context_management',
  'container',
  'mcp_servers',
  'service_tier',
  'inference_geo',
  'speed',
  'cache_control',
];

/** A Messages (or count_tokens) request body → canonical. Throws a 400 GatewayError on a body Messages does not allow. */
export function decodeRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw invalid('the request body must be a JSON object.', 'body');
  const notes: string[] = [];
  const system = systemText(body.system, 'system');
  if (!Array.isArray(body.messages)) throw invalid('must be an array of messages.', 'messages');
  const messages: CanonicalMessage[] = [];
  body.messages.forEach((m: unknown, i) => {
    const param = `messages.${i}`;
    if (!isObject(m)) throw invalid('must be a message object.', param);
    if (m.role === 'system') {
      // Claude Code's mid-conversation system messages: leading ones join `system`, later ones stay in place.
      const blocks = systemText(m.content, `${param}.content`);
      if (messages.length === 0) system.push(...blocks);
      else messages.push({ role: 'system', content: blocks });
      return;
    }
    if (m.role !== 'user' && m.role !== 'assistant')
      throw invalid('must be "user", "assistant" or "system".', `${param}.role`);
    messages.push({ role: m.role, content: content(m.content, `${param}.content`, notes) });
  });
  const req: CanonicalRequest = {
    model: string(body.model, 'model'),
    system,
    messages,
    tools: tools(body.tools, notes),
    stream: body.stream === true,
    notes,
  };
  const choice = toolChoice(body.tool_choice);
  if (choice) req.toolChoice = choice;
  if (typeof body.max_tokens === 'number') req.maxOutputTokens = body.max_tokens;
  if (typeof body.temperature === 'number') req.temperature = body.temperature;
  if (typeof body.top_p === 'number') req.topP = body.top_p;
  if (typeof body.top_k === 'number') req.topK = body.top_k;
  if (Array.isArray(body.stop_sequences))
    req.stopSequences = body.stop_sequences.map((s: unknown, i) => string(s, `stop_sequences.${i}`));
  const think = thinking(body.thinking, notes);
  if (think) req.thinking = think;
  const config = isObject(body.output_config) ? body.output_config : {};
  const level = effort(config.effort, notes);
  if (level) req.reasoningEffort = level;
  if (isObject(config.format) && config.format.type === 'json_schema' && isObject(config.format.schema)) {
    req.responseFormat = { type: 'json_schema', name: 'output', schema: config.format.schema };
  }
  if (isObject(body.metadata) && typeof body.metadata.user_id === 'string') req.user = body.metadata.user_id;
  for (const key of UNCARRIED)
    if (body[key] !== undefined && body[key] !== null)
      notes.push(`anthropic: ${key} is not carried to other providers`);
  return req;
}
