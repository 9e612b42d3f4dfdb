/**
 * Structured output to an Anthropic upstream (docs/protocols.md §6.19).
 *
 * Anthropic's API has a native form, `output_config.format: {type: "json_schema", schema}`, for a
 * line whose preset says so (the `structuredOutput: "output_config"` quirk). It takes a subset of
 * JSON Schema: every object closed (`additionalProperties: false`), string `format` only from a
 * short list, `minItems` only 0 or 1, no other numeric or string constraints. strictSchema()
 * brings a client's schema into that subset the way Anthropic's own SDK does: what the subset
 * cannot say moves into the node's description, where the model still reads it.
 *
 * Elsewhere (Anthropic-compatible services without it, and `json_object`, which has no schema to
 * send) the format is asked for in the system prompt; the client is told by the
 * `x-tollgate-structured-output: prompt` header and the log.
 */
import type { ResponseFormat, TextBlock } from '../../core/canonical.js';
import { isObject } from '../../core/json.js';
import type { Quirks } from '../../core/quirks.js';

/** The header that tells a client its structured output was only asked for in the prompt. */
export const STRUCTURED_OUTPUT_HEADER = 'x-tollgate-structured-output';

const STRING_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'uri',
  'ipv4',
  'ipv6',
  'uuid',
]);

/** Keywords strictSchema() handles itself; anything else on a node is described, not sent. */
const KEPT = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  '$ref',
  '$defs',
  'anyOf',
  'oneOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'format',
  'minItems',
]);

type Json = Record<string, unknown>;

/** A client's JSON Schema in the subset Anthropic's structured output accepts. */
export function strictSchema(node: unknown): unknown {
  if (!isObject(node)) return node;
  const out: Json = {};
  const described: Json = {};
  for (const [k, v] of Object.entries(node)) if (!KEPT.has(k)) described[k] = v;
  if (isObject(node.$defs))
    out.$defs = Object.fromEntries(Object.entries(node.$defs).map(([name, d]) => [name, strictSchema(d)]));
  if (typeof node.$ref === 'string') return { ...out, $ref: node.$ref };
  for (const k of ['type', 'title', 'description', 'enum', 'const'] as const)
    if (node[k] !== undefined) out[k] = node[k];
  const variants = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (variants) out.anyOf = variants.map(strictSchema);
  if (Array.isArray(node.allOf)) out.allOf = node.allOf.map(strictSchema);
  if (node.type === 'object' || isObject(node.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(isObject(node.properties) ? node.properties : {}).map(([name, p]) => [name, strictSchema(p)]),
    );
    out.additionalProperties = false;
    if (Array.isArray(node.required)) out.required = node.required;
  }
  if (node.items !== undefined) out.items = strictSchema(node.items);
  if (node.minItems === 0 || node.minItems === 1) out.minItems = node.minItems;
  else if (node.minItems !== undefined) described.minItems = node.minItems;
  if (typeof node.format === 'string' && STRING_FORMATS.has(node.format)) out.format = node.format;
  else if (node.format !== undefined) described.format = node.format;
  const extra = Object.entries(described).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  if (extra.length > 0)
    out.description = [out.description, `{${extra.join(', ')}}`]
      .filter((d) => typeof d === 'string' && d !== '')
      .join('\n\n');
  return out;
}

/** How a response format goes to an Anthropic line: natively, or as a system instruction (a fallback the client is told of). */
export function structuredOutput(
  f: ResponseFormat | undefined,
  quirks: Quirks | undefined,
): { format: Json } | { instruction: TextBlock } | undefined {
  if (f?.type === 'json_schema' && quirks?.structuredOutput === 'output_config')
    return { format: { type: 'json_schema', schema: strictSchema(f.schema) } };
  if (f?.type === 'json_object')
    return { instruction: { type: 'text', text: 'Respond with a single JSON object and nothing else.' } };
  if (f?.type === 'json_schema') {
    return {
      instruction: {
        type: 'text',
        text: `Respond with a single JSON object and nothing else. It must conform to this JSON Schema (named "${f.name}"):\n${JSON.stringify(f.schema)}`,
      },
    };
  }
  return undefined;
}
