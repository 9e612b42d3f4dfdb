/**
 * The non-conversation half of a Gemini request → canonical: `tools`, `toolConfig` and
 * `generationConfig` (docs/protocols.md §4, §6.8, §6.9, §6.17).
 */
import type {
  CanonicalRequest,
  ReasoningEffort,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
} from '../../core/canonical.js';
import { invalidRequest } from '../../core/errors.js';
import { isObject } from '../../core/json.js';

type Obj = Record<string, unknown>;

/** Keywords whose value is a schema, or an array of schemas. */
const SUBSCHEMA = new Set(['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'not', 'additionalProperties']);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/**
 * A Gemini schema → JSON Schema, which the canonical model and every other upstream take.
 * `parameters` / `responseSchema` are an OpenAPI 3.0 subset: upper-case `type`, `nullable`,
 * `propertyOrdering`. The JSON Schema fields get the same treatment, because Gemini accepts
 * upper-case types there too and clients send them: Gemini CLI's router builds its
 * responseJsonSchema from the SDK's `Type` enum (`type:"OBJECT"`, docs/protocols.md §4). A valid
 * lower-case JSON Schema comes out unchanged.
 */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!isObject(schema)) return schema;
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') {
      const types = (Array.isArray(value) ? value : [value])
        .map((t) => (typeof t === 'string' ? t.toLowerCase() : t))
        .filter((t) => t !== 'type_unspecified');
      if (types.length > 0) out.type = Array.isArray(value) ? types : types[0];
    } else if (SCHEMA_MAP.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, toJsonSchema(s)]));
    } else if (SUBSCHEMA.has(key)) {
      out[key] = toJsonSchema(value);
    } else if (key !== 'nullable' && key !== 'propertyOrdering') {
      out[key] = value;
    }
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function declaration(d: unknown, param: string): ToolDefinition {
  if (!isObject(d) || typeof d.name !== 'string' || d.name === '')
    throw invalidRequest(`${param}.name must be a non-empty string.`, `${param}.name`, 'invalid_type');
  let inputSchema: Obj = { type: 'object', properties: {} };
  if (isObject(d.parametersJsonSchema)) inputSchema = toJsonSchema(d.parametersJsonSchema) as Obj;
  else if (isObject(d.parameters)) inputSchema = toJsonSchema(d.parameters) as Obj;
  const def: ToolDefinition = { name: d.name, inputSchema };
  if (typeof d.description === 'string') def.description = d.description;
  return def;
}

/** `functionDeclarations` become tools; Google's own tools (googleSearch, codeExecution, urlContext, …) run only at Google. */
export function decodeTools(v: unknown, notes: string[]): ToolDefinition[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidRequest('tools must be an array.', 'tools', 'invalid_type');
  return v.flatMap((t: unknown, i): ToolDefinition[] => {
    if (!isObject(t)) throw invalidRequest(`tools[${i}] must be an object.`, `tools[${i}]`, 'invalid_type');
    const out: ToolDefinition[] = [];
    for (const [key, value] of Object.entries(t)) {
      if (key !== 'functionDeclarations') {
        notes.push(`gemini: dropped the ${key} tool (only Google can run it)`);
        continue;
      }
      if (!Array.isArray(value))
        throw invalidRequest(
          `tools[${i}].functionDeclarations must be an array.`,
          `tools[${i}].functionDeclarations`,
          'invalid_type',
        );
      value.forEach((d: unknown, j) => out.push(declaration(d, `tools[${i}].functionDeclarations[${j}]`)));
    }
    return out;
  });
}

/** `toolConfig.functionCallingConfig` → tool choice. ANY with exactly one allowed name is how Gemini forces one function. */
export function decodeToolChoice(v: unknown, notes: string[]): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  const config = isObject(v) ? v.functionCallingConfig : undefined;
  if (config === undefined || config === null) return undefined;
  if (!isObject(config))
    throw invalidRequest(
      'toolConfig.functionCallingConfig must be an object.',
      'toolConfig.functionCallingConfig',
      'invalid_type',
    );
  const names = Array.isArray(config.allowedFunctionNames)
    ? config.allowedFunctionNames.filter((n): n is string => typeof n === 'string')
    : [];
  const mode = typeof config.mode === 'string' ? config.mode.toUpperCase() : 'MODE_UNSPECIFIED';
  if (names.length > 0 && mode !== 'ANY') notes.push(`gemini: allowedFunctionNames ignored with mode ${mode}`);
  switch (mode) {
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
      return { type: 'auto' };
    case 'VALIDATED':
      notes.push('gemini: function-calling mode VALIDATED sent as AUTO');
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY': {
      const [only] = names;
      if (names.length === 1 && only !== undefined) return { type: 'tool', name: only };
      if (names.length > 1) notes.push('gemini: allowedFunctionNames with several names sent as "any tool"');
      return { type: 'any' };
    }
    default:
      throw invalidRequest(
        'toolConfig.functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED.',
        'toolConfig.functionCallingConfig.mode',
      );
  }
}

function num(g: Obj, key: string): number | undefined {
  const v = g[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw invalidRequest(`generationConfig.${key} must be a number.`, `generationConfig.${key}`, 'invalid_type');
  return v;
}

function responseFormat(g: Obj, notes: string[]): ResponseFormat | undefined {
  const mime = g.responseMimeType;
  if (mime === undefined || mime === null) return undefined;
  if (mime === 'text/plain') return { type: 'text' };
  if (mime !== 'application/json') {
    notes.push(`gemini: responseMimeType ${JSON.stringify(mime)} is not carried to other providers`);
    return undefined;
  }
  // responseJsonSchema is JSON Schema (Gemini CLI's router sends it); responseSchema is the OpenAPI subset.
  const schema = isObject(g.responseJsonSchema)
    ? g.responseJsonSchema
    : isObject(g.responseSchema)
      ? g.responseSchema
      : undefined;
  if (schema) return { type: 'json_schema', name: 'response', schema: toJsonSchema(schema) as Obj };
  return { type: 'json_object' };
}

/** A Map, since the level is the client's text. */
const LEVELS = new Map<string, ReasoningEffort>([
  ['MINIMAL', 'minimal'],
  ['LOW', 'low'],
  ['MEDIUM', 'medium'],
  ['HIGH', 'high'],
]);

/**
 * thinkingBudget: 0 turns thinking off, -1 lets the model decide (adaptive), N is a budget.
 * thinkingLevel is an effort. includeThoughts without a budget asks to see the thinking at the
 * model's own depth: adaptive, which is also what Claude Code asks for.
 */
function thinking(v: unknown, req: CanonicalRequest, notes: string[]): void {
  if (v === undefined || v === null) return;
  if (!isObject(v))
    throw invalidRequest(
      'generationConfig.thinkingConfig must be an object.',
      'generationConfig.thinkingConfig',
      'invalid_type',
    );
  const budget = num(v, 'thinkingBudget');
  if (budget === 0) req.thinking = { type: 'disabled' };
  else if (budget === -1) req.thinking = { type: 'adaptive' };
  else if (budget !== undefined) req.thinking = { type: 'enabled', budgetTokens: budget };
  else if (v.includeThoughts === true) req.thinking = { type: 'adaptive' };
  if (typeof v.thinkingLevel === 'string') {
    const level = LEVELS.get(v.thinkingLevel.toUpperCase());
    if (level) req.reasoningEffort = level;
    else if (v.thinkingLevel !== 'THINKING_LEVEL_UNSPECIFIED')
      notes.push(`gemini: unknown thinkingLevel ${JSON.stringify(v.thinkingLevel)} ignored`);
  }
}

/** `generationConfig` → the canonical sampling fields. Several candidates are refused: no other protocol returns them. */
export function decodeGenerationConfig(v: unknown, req: CanonicalRequest, notes: string[]): void {
  if (v === undefined || v === null) return;
  if (!isObject(v)) throw invalidRequest('generationConfig must be an object.', 'generationConfig', 'invalid_type');
  const candidates = num(v, 'candidateCount');
  if (candidates !== undefined && candidates > 1) {
    throw invalidRequest(
      'generationConfig.candidateCount above 1 is not supported by this gateway.',
      'generationConfig.candidateCount',
      'unsupported_value',
    );
  }
  const fields = [
    ['maxOutputTokens', 'maxOutputTokens'],
    ['temperature', 'temperature'],
    ['topP', 'topP'],
    ['topK', 'topK'],
    ['seed', 'seed'],
    ['presencePenalty', 'presencePenalty'],
    ['frequencyPenalty', 'frequencyPenalty'],
  ] as const;
  for (const [wire, canonical] of fields) {
    const n = num(v, wire);
    if (n !== undefined) req[canonical] = n;
  }
  if (v.stopSequences !== undefined && v.stopSequences !== null) {
    if (!Array.isArray(v.stopSequences) || !v.stopSequences.every((s) => typeof s === 'string')) {
      throw invalidRequest(
        'generationConfig.stopSequences must be an array of strings.',
        'generationConfig.stopSequences',
        'invalid_type',
      );
    }
    req.stopSequences = v.stopSequences;
  }
  const format = responseFormat(v, notes);
  if (format) req.responseFormat = format;
  thinking(v.thinkingConfig, req, notes);
  // Output the canonical model cannot bring back: refused on the translated path (relay/translate.ts).
  const outputs: { param: string; what: string }[] = [];
  if (Array.isArray(v.responseModalities) && v.responseModalities.some((m) => m !== 'TEXT'))
    outputs.push({
      param: 'generationConfig.responseModalities',
      what: `${v.responseModalities.filter((m) => m !== 'TEXT').join(' and ')} output`,
    });
  if (v.responseLogprobs === true)
    outputs.push({ param: 'generationConfig.responseLogprobs', what: 'log probabilities' });
  else if (v.logprobs !== undefined && v.logprobs !== null)
    outputs.push({ param: 'generationConfig.logprobs', what: 'log probabilities' });
  if (outputs.length > 0) req.uncarriedOutputs = outputs;
}
