/**
 * What the mock answers, decided once for every wire format: each format decodes its request into a
 * `Conversation`, and `planReply` returns the same text, tool calls and usage for the same conversation,
 * so a test can compare a gateway's output across protocols exactly.
 */
import { isObject, randomId, type Json } from './http.js';
import type { Scenario } from './scenario.js';

export interface ToolSpec {
  name: string;
  /** JSON Schema, or Gemini's OpenAPI subset (upper-case `type` values). */
  schema: unknown;
}

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments object. */
  args: string;
}

export interface TextReply {
  /** One word per fragment, leading space kept, so the fragments join back to `text`. */
  fragments: string[];
  text: string;
  /** Why generation ended, vendor-neutral. */
  end: 'stop' | 'length' | 'stop_sequence';
  stopSequence: string | null;
}

/** Token counts, vendor-neutral: see Scenario.usage for how each vendor reports them. */
export interface Usage {
  /** The whole prompt, cache included. */
  prompt: number;
  /** The whole output, reasoning included. */
  output: number;
  cached: number;
  /** Every cache write, the 1-hour ones included. */
  cacheWrite: number;
  /** The share of `cacheWrite` kept an hour (only Anthropic reports it apart). */
  cacheWrite1h: number;
  reasoning: number;
}

/** A request, reduced to what decides the reply. */
export interface Conversation {
  /** Text of the latest user turn that holds text: the default reply echoes it. */
  userText: string;
  /** Outputs of the tool results that end the conversation, in order; empty when it ends otherwise. */
  toolResults: string[];
  /** The last turn is a user turn that is not tool results: the only case in which the mock calls a tool. */
  endsWithUserText: boolean;
  tools: ToolSpec[];
  /** `none` never calls a tool; a name forces that tool. */
  toolChoice: 'auto' | 'none' | { name: string };
  /** False when the request forbids parallel tool calls. */
  parallel: boolean;
  maxTokens: unknown;
  stops: string[];
  /** Characters of all text in the prompt (system, messages, tool arguments and results); 4 characters a token. */
  promptChars: number;
  /**
   * The request asked for JSON in its vendor's own structured-output field: the reply is a JSON
   * object, made from `schema` when there is one. An instruction in the prompt does not count: the
   * mock is not a model that reads its prompt.
   */
  json?: { schema?: unknown };
}

export interface ReplyPlan {
  /** Non-empty: answer with these tool calls and no text. */
  calls: ToolCall[];
  text: TextReply;
  usage: Usage;
}

/** Output tokens counted for each tool call. */
const TOKENS_PER_CALL = 5;

/**
 * Tool calls when tools are offered and the user just spoke (the first tool; the first two when the text says
 * "parallel"), else text: the scenario's reply or words, `tool result: <results joined by "; ">` after tool
 * results, or `mock reply to: <first 40 characters of the user text>`.
 */
export function planReply(s: Scenario, c: Conversation, callIdPrefix: string): ReplyPlan {
  let calls: ToolCall[] = [];
  if ((c.endsWithUserText || (s.loop && c.toolResults.length > 0)) && c.tools.length > 0 && c.toolChoice !== 'none') {
    const forced = typeof c.toolChoice === 'object' ? c.toolChoice.name : undefined;
    calls = pickToolCalls(c.tools, forced ?? s.tool, c.userText, c.parallel, callIdPrefix);
    if (s.args !== undefined && s.tool !== undefined && calls[0]?.name === s.tool) calls[0].args = s.args;
  }
  const plain = replyText(s, c.toolResults.length ? c.toolResults.join('; ') : undefined, c.userText);
  const text = shapeText(
    c.json ? JSON.stringify(c.json.schema === undefined ? { reply: plain } : sampleArguments(c.json.schema)) : plain,
    c.maxTokens,
    c.stops,
  );
  const usage = resolveUsage(s, c.promptChars, calls.length ? calls.length * TOKENS_PER_CALL : text.fragments.length);
  return { calls, text, usage };
}

function replyText(s: Scenario, toolResult: string | undefined, userText: string): string {
  if (s.reply !== undefined) return s.reply;
  if (s.words !== undefined) return Array.from({ length: s.words }, (_, i) => `w${i + 1}`).join(' ');
  if (toolResult !== undefined) return `tool result: ${toolResult}`;
  return `mock reply to: ${userText.slice(0, 40)}`;
}

/** Cuts at the first stop sequence, then at `maxTokens` words (a word is one token). */
function shapeText(text: string, maxTokens: unknown, stops: string[]): TextReply {
  let end: TextReply['end'] = 'stop';
  let stopSequence: string | null = null;
  let cut = text.length;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && at < cut) [cut, stopSequence, end] = [at, stop, 'stop_sequence'];
  }
  let words = text.slice(0, cut).split(/\s+/).filter(Boolean);
  if (typeof maxTokens === 'number' && maxTokens >= 0 && maxTokens < words.length) {
    words = words.slice(0, maxTokens);
    [end, stopSequence] = ['length', null];
  }
  const fragments = words.map((w, i) => (i === 0 ? w : ` ${w}`));
  return { fragments, text: fragments.join(''), end, stopSequence };
}

/** A stop parameter (string or list) as a list of non-empty strings. */
export function stopList(stop: unknown): string[] {
  if (typeof stop === 'string') return stop ? [stop] : [];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string' && s.length > 0) : [];
}

function pickToolCalls(
  tools: ToolSpec[],
  forced: string | undefined,
  userText: string,
  parallel: boolean,
  idPrefix: string,
): ToolCall[] {
  const named = forced === undefined ? undefined : tools.find((t) => t.name === forced);
  const chosen = named
    ? [named]
    : parallel && tools.length >= 2 && /parallel/i.test(userText)
      ? tools.slice(0, 2)
      : tools.slice(0, 1);
  return chosen.map((t) => ({
    id: `${idPrefix}${randomId(24)}`,
    name: t.name,
    args: JSON.stringify(sampleArguments(t.schema)),
  }));
}

/**
 * One property per required parameter: the first `enum` value, else "x" for strings, 1 for
 * numbers, true for booleans, and objects filled the same way. Types are compared lower-cased
 * because Gemini's `parameters` schema spells them `STRING`, `INTEGER`, ….
 */
export function sampleArguments(schema: unknown): Json {
  const args: Json = {};
  if (!isObject(schema) || !Array.isArray(schema.required)) return args;
  const properties: Json = isObject(schema.properties) ? schema.properties : {};
  for (const name of schema.required) {
    if (typeof name !== 'string') continue;
    args[name] = sampleValue(properties[name]);
  }
  return args;
}

function sampleValue(schema: unknown): unknown {
  if (!isObject(schema)) return 'x';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const declared: unknown = schema.type;
  const first = Array.isArray(declared) ? declared.find((t) => String(t).toLowerCase() !== 'null') : declared;
  const type = String(first ?? '').toLowerCase();
  return type === 'number' || type === 'integer'
    ? 1
    : type === 'boolean'
      ? true
      : type === 'array'
        ? []
        : type === 'object'
          ? sampleArguments(schema)
          : 'x';
}

/** Scenario usage wins; otherwise the prompt is 4 characters a token and the output is what was generated. */
export function resolveUsage(s: Scenario, promptChars: number, generatedTokens: number): Usage {
  const reasoning = s.usage.reasoning ?? 0;
  const output = s.rawUsage.output ?? s.usage.output ?? generatedTokens + reasoning;
  const cacheWrite1h = s.usage.cacheWrite1h ?? 0;
  return {
    prompt: s.rawUsage.input ?? s.usage.input ?? Math.max(1, Math.ceil(promptChars / 4)),
    output,
    cached: s.usage.cached ?? 0,
    cacheWrite: (s.usage.cacheWrite ?? 0) + cacheWrite1h,
    cacheWrite1h,
    // Never below 0: a lying output figure (usage-out-raw) is reported as it is, not hidden in the reasoning share.
    reasoning: Math.max(0, Math.min(reasoning, output)),
  };
}

/** Splits into at most `parts` non-empty pieces of near-equal length (streamed tool arguments). */
export function splitInto(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
