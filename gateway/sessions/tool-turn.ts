/**
 * The last tool round of a request: the tool calls the model made in its previous turn and the
 * results the client sends back with this request, as the loop guard compares them. An agent
 * stuck in a loop sends the same call (name and arguments) and gets the same result, turn after
 * turn, while its conversation grows; an honest agent's calls or results change.
 *
 * Read from the parsed body, per wire format, looking only at the end of the conversation (the
 * last two turns), so the cost does not grow with the conversation. Call ids are left out: a
 * client makes new ones every turn.
 */
import { createHash } from 'node:crypto';
import type { FormatId } from '../contract/formats.js';

/** One tool call and the result that answered it. */
export interface ToolRound {
  /** Equal for equal rounds: a hash of the calls (name, arguments) and their results. */
  signature: string;
  /** The calls for people, e.g. `Read {"file_path":"notes.txt"}`, at most 300 characters. */
  readonly call: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));

/**
 * A tool result as compared. Codex heads each command's output with lines that differ on every run
 * of the same command (`Chunk ID: 0c753b`, `Wall time: 0.0007 seconds`, as recorded in
 * docs/sessions.md); they are left out, or a looping Codex would never repeat itself.
 */
function result(v: unknown): string {
  const t = text(v);
  // The pattern runs only on a result that holds such a line: two native scans cost less than a multiline pattern.
  if (!t.includes('Chunk ID: ') && !t.includes('Wall time: ')) return t;
  return t.replace(/^(?:Chunk ID|Wall time): [^\n]*\n/gm, '');
}

/** name, arguments as text, result as text: one per call answered. */
type Pair = [string, string, string];

function anthropic(body: Json): Pair[] {
  const msgs = arr(body.messages);
  const last = msgs.at(-1);
  const prev = msgs.at(-2);
  if (!isObj(last) || !isObj(prev) || last.role !== 'user' || prev.role !== 'assistant') return [];
  const results = new Map<string, string>();
  for (const b of arr(last.content))
    if (isObj(b) && b.type === 'tool_result') results.set(String(b.tool_use_id), result(b.content));
  const out: Pair[] = [];
  for (const b of arr(prev.content))
    if (isObj(b) && b.type === 'tool_use' && results.has(String(b.id)))
      out.push([String(b.name), text(b.input), results.get(String(b.id))!]);
  return out;
}

function openaiChat(body: Json): Pair[] {
  const msgs = arr(body.messages);
  const results = new Map<string, string>();
  let i = msgs.length - 1;
  for (; i >= 0; i--) {
    const m = msgs[i];
    if (!isObj(m) || m.role !== 'tool') break;
    results.set(String(m.tool_call_id), result(m.content));
  }
  const asst = msgs[i];
  if (results.size === 0 || !isObj(asst) || asst.role !== 'assistant') return [];
  const out: Pair[] = [];
  for (const c of arr(asst.tool_calls)) {
    if (!isObj(c) || !isObj(c.function) || !results.has(String(c.id))) continue;
    out.push([String(c.function.name), text(c.function.arguments), results.get(String(c.id))!]);
  }
  return out;
}

/** Codex sends its whole history as `input`: the trailing outputs, matched to their calls by call_id. */
function openaiResponses(body: Json): Pair[] {
  const items = arr(body.input);
  const results = new Map<string, string>();
  let i = items.length - 1;
  for (; i >= 0; i--) {
    const it = items[i];
    if (!isObj(it) || typeof it.type !== 'string' || !it.type.endsWith('_call_output')) break;
    results.set(String(it.call_id), result(it.output));
  }
  const out: Pair[] = [];
  for (let j = i; j >= 0 && out.length < results.size; j--) {
    const it = items[j];
    if (!isObj(it) || typeof it.type !== 'string' || !it.type.endsWith('_call')) continue;
    const result = results.get(String(it.call_id));
    if (result === undefined) continue;
    out.unshift([String(it.name ?? it.type), text(it.arguments ?? it.input ?? it.action), result]);
  }
  return out;
}

function gemini(body: Json): Pair[] {
  const contents = arr(body.contents);
  const last = contents.at(-1);
  const prev = contents.at(-2);
  if (!isObj(last) || !isObj(prev)) return [];
  const responses = arr(last.parts).filter((p): p is Json => isObj(p) && isObj(p.functionResponse));
  const calls = arr(prev.parts).filter((p): p is Json => isObj(p) && isObj(p.functionCall));
  // Gemini pairs calls and responses by position (and name), not by an id.
  return calls.slice(0, responses.length).map((c, k) => {
    const call = c.functionCall as Json;
    return [String(call.name), text(call.args), result((responses[k]!.functionResponse as Json).response)];
  });
}

const READERS: Record<FormatId, (body: Json) => Pair[]> = {
  anthropic,
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  gemini,
};

/**
 * The tool round that ends this request, or null when it does not end with tool results. The
 * signature hashes each call's name, arguments and result in turn, each led by its length (so no
 * two different rounds hash the same text), rather than one JSON text of them all; the call's text
 * for people is made only when it is read (a pause), not on every request.
 */
export function lastToolRound(format: FormatId, body: unknown): ToolRound | null {
  if (!isObj(body)) return null;
  const pairs = READERS[format](body);
  if (pairs.length === 0) return null;
  const hash = createHash('sha1');
  for (const [name, args, res] of pairs)
    hash.update(`${name.length}.${args.length}.${res.length}\u0000`).update(name).update(args).update(res);
  const signature = hash.digest('base64');
  let call: string | undefined;
  return {
    signature,
    get call(): string {
      call ??= pairs
        .map(([name, args]) => `${name} ${args}`)
        .join('; ')
        .slice(0, 300);
      return call;
    },
  };
}
