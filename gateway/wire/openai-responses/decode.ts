/**
 * OpenAI Responses request → canonical. Used when the client speaks Responses (Codex CLI, the
 * openai SDK's `responses.create`) and the line's upstream does not.
 *
 * Decisions (docs/protocols.md §3 and §6); input items are in decode-items.ts:
 * - `instructions` comes first in `system`, then the leading system/developer items.
 * - Function tools are flat. Codex's `namespace` tools are flattened into their function tools,
 *   names unchanged (the codec can put the `namespace` back on calls; see codec.ts). Hosted tools
 *   (`web_search`, `file_search`, `custom`, `local_shell`, `mcp`…) run on OpenAI's side only and
 *   are dropped with a note, as is a tool_choice that names one.
 * - `store`, `previous_response_id`, `include` and `metadata` are the route's business or
 *   OpenAI's, not the model's: they are not read here. `prompt_cache_key` is kept for a Responses
 *   upstream (the line's prompt cache). The route resolves
 *   previous_response_id by putting the stored items in front of inputItems(body).
 */
import type {
  CanonicalRequest,
  ReasoningEffort,
  ResponseFormat,
  TextBlock,
  Thinking,
  ToolChoice,
  ToolDefinition,
} from '../../core/canonical.js';
import { isObject as isObj, type JsonObject as Obj } from '../../core/json.js';
import { decodeItems } from './decode-items.js';
import { invalidRequest } from '../../core/errors.js';

/** `input` as an array of items: a bare string is one user message. */
export function inputItems(body: unknown): unknown[] {
  const input = isObj(body) ? body.input : undefined;
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (Array.isArray(input)) return input;
  if (input === undefined || input === null) return [];
  throw invalidRequest('input must be a string or an array of input items.', 'input', 'invalid_type');
}

function numberField(v: unknown, param: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw invalidRequest(`${param} must be a number.`, param, 'invalid_type');
  return v;
}

function functionTool(t: Obj, param: string): ToolDefinition {
  if (typeof t.name !== 'string' || t.name === '')
    throw invalidRequest(`${param}.name must be a non-empty string.`, `${param}.name`, 'invalid_type');
  const def: ToolDefinition = {
    name: t.name,
    inputSchema: isObj(t.parameters) ? t.parameters : { type: 'object', properties: {} },
  };
  if (typeof t.description === 'string') def.description = t.description;
  if (typeof t.strict === 'boolean') def.strict = t.strict;
  return def;
}

const toolType = (t: unknown): string => JSON.stringify(isObj(t) ? t.type : t);

/** Each function tool with the namespace it came from (undefined for top-level ones). */
function functionTools(raw: unknown, notes: Set<string>): { def: ToolDefinition; namespace?: string }[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest('tools must be an array.', 'tools', 'invalid_type');
  return raw.flatMap((t, j) => {
    const param = `tools[${j}]`;
    if (!isObj(t)) throw invalidRequest(`${param} must be an object.`, param, 'invalid_type');
    if (t.type === 'function') return [{ def: functionTool(t, param) }];
    if (t.type === 'namespace' && typeof t.name === 'string' && Array.isArray(t.tools)) {
      const namespace = t.name;
      notes.add(`openai-responses: flattened namespace tool "${namespace}" into its function tools`);
      return t.tools.flatMap((inner, k) => {
        if (isObj(inner) && inner.type === 'function')
          return [{ def: functionTool(inner, `${param}.tools[${k}]`), namespace }];
        notes.add(
          `openai-responses: dropped a ${toolType(inner)} tool from namespace "${namespace}": only function tools translate`,
        );
        return [];
      });
    }
    notes.add(`openai-responses: dropped a ${toolType(t)} tool: only function tools translate`);
    return [];
  });
}

function decodeTools(raw: unknown, notes: Set<string>): ToolDefinition[] {
  const seen = new Set<string>();
  return functionTools(raw, notes).flatMap(({ def }) => {
    // Two namespaces may hold a function of the same name; upstreams refuse duplicate tool names.
    if (seen.has(def.name)) {
      notes.add(`openai-responses: dropped a second tool named "${def.name}"`);
      return [];
    }
    seen.add(def.name);
    return [def];
  });
}

/** Flattened tool name → its Codex namespace, for putting `namespace` back on the calls the model makes. */
export function toolNamespaces(body: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const { def, namespace } of functionTools(isObj(body) ? body.tools : undefined, new Set())) {
    if (namespace !== undefined && !out.has(def.name)) out.set(def.name, namespace);
  }
  return out;
}

function decodeToolChoice(raw: unknown, parallel: unknown, notes: Set<string>): ToolChoice | undefined {
  let choice: Exclude<ToolChoice, { type: 'none' }> | undefined;
  if (raw === 'none') return { type: 'none' };
  if (raw === 'auto') choice = { type: 'auto' };
  else if (raw === 'required') choice = { type: 'any' };
  else if (isObj(raw) && raw.type === 'function' && typeof raw.name === 'string')
    choice = { type: 'tool', name: raw.name };
  else if (isObj(raw) && raw.type === 'allowed_tools') {
    notes.add('openai-responses: tool_choice allowed_tools: the allowed list is not carried, only its mode');
    choice = { type: raw.mode === 'required' ? 'any' : 'auto' };
  } else if (isObj(raw))
    notes.add(`openai-responses: tool_choice ${toolType(raw)} names a tool that does not translate; the model chooses`);
  else if (raw !== undefined && raw !== null)
    throw invalidRequest('tool_choice must be "none", "auto", "required" or {type:"function", name}.', 'tool_choice');
  if (parallel === false) return { ...(choice ?? { type: 'auto' }), disableParallel: true };
  return choice;
}

/** OpenAI's wider effort scale onto the canonical one: `none` turns thinking off, above `high` is `high`. */
function decodeEffort(raw: unknown, notes: Set<string>): { reasoningEffort?: ReasoningEffort; thinking?: Thinking } {
  if (raw === undefined || raw === null) return {};
  if (raw === 'none') return { thinking: { type: 'disabled' } };
  if (raw === 'minimal' || raw === 'low' || raw === 'medium' || raw === 'high') return { reasoningEffort: raw };
  if (raw === 'xhigh' || raw === 'max') {
    notes.add(`openai-responses: reasoning.effort "${raw}" sent as "high"`);
    return { reasoningEffort: 'high' };
  }
  throw invalidRequest('reasoning.effort must be one of none, minimal, low, medium, high, xhigh.', 'reasoning.effort');
}

function decodeFormat(text: unknown, notes: Set<string>): ResponseFormat | undefined {
  if (!isObj(text)) return undefined;
  if (text.verbosity !== undefined && text.verbosity !== null)
    notes.add('openai-responses: text.verbosity is not carried to this upstream');
  const f = text.format;
  if (f === undefined || f === null) return undefined;
  if (!isObj(f)) throw invalidRequest('text.format must be an object.', 'text.format', 'invalid_type');
  if (f.type === 'text' || f.type === 'json_object') return { type: f.type };
  if (f.type === 'json_schema' && typeof f.name === 'string') {
    const out: ResponseFormat = { type: 'json_schema', name: f.name, schema: isObj(f.schema) ? f.schema : {} };
    if (typeof f.strict === 'boolean') out.strict = f.strict;
    return out;
  }
  throw invalidRequest(
    'text.format must be {type:"text"}, {type:"json_object"} or {type:"json_schema", name, schema}.',
    'text.format',
  );
}

/** Fields with no canonical counterpart; each one present is logged as a note. */
const UNCARRIED = ['background', 'conversation', 'prompt'] as const;

/** Output asked for that the canonical model cannot bring back (refused on the translated path, relay/translate.ts). */
function uncarriedOutputs(body: Obj): { param: string; what: string }[] {
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.top_logprobs !== 0)
    return [{ param: 'top_logprobs', what: 'log probabilities' }];
  if (Array.isArray(body.include) && body.include.includes('message.output_text.logprobs'))
    return [{ param: 'include', what: 'log probabilities' }];
  return [];
}

export function decodeRequest(body: unknown): CanonicalRequest {
  if (!isObj(body)) throw invalidRequest('The request body must be a JSON object.', 'body', 'invalid_type');
  if (typeof body.model !== 'string' || body.model === '')
    throw invalidRequest('model must be a non-empty string.', 'model', 'invalid_type');
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string')
    throw invalidRequest('instructions must be a string.', 'instructions', 'invalid_type');
  const notes = new Set<string>();
  const decoded = decodeItems(inputItems(body), notes);
  const system: TextBlock[] =
    typeof body.instructions === 'string' && body.instructions !== ''
      ? [{ type: 'text', text: body.instructions }]
      : [];
  system.push(...decoded.system);
  const req: CanonicalRequest = {
    model: body.model,
    system,
    messages: decoded.messages,
    tools: decodeTools(body.tools, notes),
    stream: body.stream === true,
    notes: [],
  };
  const toolChoice = decodeToolChoice(body.tool_choice, body.parallel_tool_calls, notes);
  if (toolChoice) req.toolChoice = toolChoice;
  const maxOut = numberField(body.max_output_tokens, 'max_output_tokens');
  if (maxOut !== undefined) req.maxOutputTokens = maxOut;
  const temperature = numberField(body.temperature, 'temperature');
  if (temperature !== undefined) req.temperature = temperature;
  const topP = numberField(body.top_p, 'top_p');
  if (topP !== undefined) req.topP = topP;
  // `safety_identifier` is OpenAI's newer name for the end-user id.
  const user = [body.user, body.safety_identifier].find((u) => typeof u === 'string');
  if (typeof user === 'string') req.user = user;
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '')
    req.promptCacheKey = body.prompt_cache_key;
  if (isObj(body.reasoning)) Object.assign(req, decodeEffort(body.reasoning.effort, notes));
  const format = decodeFormat(body.text, notes);
  if (format) req.responseFormat = format;
  // Compaction thresholds: Responses' own shape, for a Responses upstream (docs/protocols.md §3.1).
  if (Array.isArray(body.context_management) && body.context_management.length > 0)
    req.contextManagement = { family: 'openai', value: body.context_management };
  for (const k of UNCARRIED)
    if (body[k] !== undefined && body[k] !== null && body[k] !== false && body[k] !== 0)
      notes.add(`openai-responses: ${k} is not carried to this upstream`);
  const outputs = uncarriedOutputs(body);
  if (outputs.length > 0) req.uncarriedOutputs = outputs;
  req.notes = [...notes];
  return req;
}
