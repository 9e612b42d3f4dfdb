/**
 * Canonical request → Gemini `generateContent` / `streamGenerateContent?alt=sse` (the line's base
 * URL is the origin, e.g. https://generativelanguage.googleapis.com). Decisions (docs/protocols.md §4, §6):
 *
 * - Turns alternate user/model: consecutive same-role messages are merged, and a conversation that
 *   opens with a model turn gets a filler user turn first. Mid-conversation system messages become
 *   `<system-reminder>` user text, as the anthropic provider does (Gemini has no such role).
 * - A model turn with function calls must be followed directly by the user turn holding their
 *   functionResponses, and those go first in it, in the order of the calls. `response` must be
 *   an object: `{output}`, or `{error}` for a failed tool. Images in tool results follow as
 *   inlineData parts of that turn, which every Gemini model reads (functionResponse.parts is
 *   Gemini 3 only).
 * - Call ids are sent only for a model turn that came from Gemini (one of its calls carries a
 *   Gemini signature); foreign ids (`toolu_…`, `call_…`) are left out and Gemini pairs calls and
 *   responses by name and order, as it does for its own id-less calls.
 * - Gemini 3 rejects function-call history without a thought signature on the first call of each
 *   step. Signatures from Gemini are passed back; a turn without one gets Gemini CLI's placeholder
 *   `skip_thought_signature_validator` on its first call. Thinking is sent back only when Gemini
 *   made it.
 * - Thinking: a budget is sent as thinkingBudget; an effort as thinkingLevel, except on Gemini 1/2
 *   models, which have no levels and get a budget instead. `includeThoughts` is set when the client
 *   asked for thinking. "Disabled" sends nothing: a budget of 0 is refused by the models that
 *   always think (2.5 Pro, 3 Pro), so the model's default applies, with thoughts hidden.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  ReasoningEffort,
  TextBlock,
  ToolCallBlock,
  ToolChoice,
  ToolResultBlock,
} from '../../core/canonical.js';
import type { UpstreamRequest } from '../../core/codec.js';
import { SKIP_SIGNATURE, mimeFromUrl, type GeminiContent, type GeminiPart } from './types.js';
import { FILLER_USER_TEXT, fillerTurnNote } from '../../core/shaping.js';

/** Gemini allows at most five stop sequences. */
const MAX_STOP_SEQUENCES = 5;
/** Effort levels as budgets, for models without thinkingLevel; each fits every 2.x model's allowed range. */
const EFFORT_BUDGET: Record<ReasoningEffort, number> = { minimal: 512, low: 1024, medium: 8192, high: 24576 };

type FunctionResponse = NonNullable<GeminiPart['functionResponse']>;

interface Turn {
  role: 'user' | 'model';
  /** functionResponse parts, with the canonical id of the call each answers. */
  results: { response: Omit<FunctionResponse, 'id'>; callId: string }[];
  /** Images and files from tool results: after the responses, before the rest. */
  resultMedia: GeminiPart[];
  parts: GeminiPart[];
  /** The functionCall parts in `parts`, finished once the whole history is known. */
  calls: { part: GeminiPart; block: ToolCallBlock }[];
}

export interface GeminiUpstreamRequest extends UpstreamRequest {
  body: Record<string, unknown>;
  notes: string[];
}

function mediaPart(b: ImageBlock | DocumentBlock, notes: Set<string>): GeminiPart {
  const s = b.source;
  switch (s.kind) {
    case 'base64':
      return { inlineData: { mimeType: s.mediaType, data: s.data } };
    case 'text':
      notes.add('gemini: a plain-text document was sent as a text part');
      return { text: s.data };
    case 'url': {
      notes.add('gemini: a media URL was sent as fileData; Gemini fetches only the URLs it supports');
      const mimeType = mimeFromUrl(s.url);
      return { fileData: mimeType ? { mimeType, fileUri: s.url } : { fileUri: s.url } };
    }
    case 'file':
      return { fileData: { fileUri: s.fileId } };
  }
}

const textPart = (b: TextBlock): GeminiPart[] => (b.text === '' ? [] : [{ text: b.text }]);

function toolResult(b: ToolResultBlock, names: Map<string, string>, turn: Turn, notes: Set<string>): void {
  const texts: string[] = [];
  for (const c of b.content) {
    if (c.type === 'text') texts.push(c.text);
    else if (c.type === 'document' && c.source.kind === 'text') texts.push(c.source.data);
    else turn.resultMedia.push(mediaPart(c, notes));
  }
  const text = texts.join('\n\n');
  let name = names.get(b.toolCallId) ?? b.name;
  if (!name) {
    notes.add('gemini: a tool result without a matching call was sent with the name "unknown"');
    name = 'unknown';
  }
  turn.results.push({
    response: { name, response: b.isError ? { error: text } : { output: text } },
    callId: b.toolCallId,
  });
}

function modelBlock(b: ContentBlock, turn: Turn, notes: Set<string>): void {
  switch (b.type) {
    case 'text':
      turn.parts.push(...textPart(b));
      return;
    case 'thinking':
      // Thought signatures verify only with Gemini; other families' thinking cannot be replayed.
      if (b.family !== 'gemini') notes.add(`gemini: dropped thinking blocks from ${b.family ?? 'an unknown provider'}`);
      else
        turn.parts.push(
          b.signature
            ? { text: b.text, thought: true, thoughtSignature: b.signature }
            : { text: b.text, thought: true },
        );
      return;
    case 'redacted_thinking':
      notes.add(`gemini: dropped redacted thinking from ${b.family ?? 'an unknown provider'}`);
      return;
    case 'tool_call': {
      const part: GeminiPart = { functionCall: { name: b.name, args: b.input } };
      turn.parts.push(part);
      turn.calls.push({ part, block: b });
      return;
    }
    case 'image':
    case 'document':
      turn.parts.push(mediaPart(b, notes));
      return;
    case 'tool_result':
      notes.add('gemini: dropped a tool result from a model turn');
      return;
    case 'compaction':
      // Only OpenAI can read it; the relay's note says so once (core/shaping.ts uncarriedStateNotes).
      return;
  }
}

function userBlock(b: ContentBlock, turn: Turn, names: Map<string, string>, notes: Set<string>): void {
  if (b.type === 'text') turn.parts.push(...textPart(b));
  else if (b.type === 'image' || b.type === 'document') turn.parts.push(mediaPart(b, notes));
  else if (b.type === 'tool_result') toolResult(b, names, turn, notes);
  else notes.add(`gemini: dropped a ${b.type} block from a user turn`);
}

function turnOf(m: CanonicalMessage, names: Map<string, string>, notes: Set<string>): Turn {
  const turn: Turn = {
    role: m.role === 'assistant' ? 'model' : 'user',
    results: [],
    resultMedia: [],
    parts: [],
    calls: [],
  };
  if (m.role === 'system') {
    for (const b of m.content)
      if (b.type === 'text' && b.text !== '')
        turn.parts.push({ text: `<system-reminder>\n${b.text}\n</system-reminder>` });
    notes.add('gemini: mid-conversation system messages sent as <system-reminder> user text');
  } else {
    for (const b of m.content) {
      if (m.role === 'assistant') modelBlock(b, turn, notes);
      else userBlock(b, turn, names, notes);
    }
  }
  return turn;
}

/** Ids and signatures of the calls, now that every turn is known; returns the ids that were sent. */
function finishCalls(turns: Turn[], notes: Set<string>): Set<string> {
  const sent = new Set<string>();
  let placeholders = 0;
  for (const t of turns) {
    const fromGemini = t.calls.some((c) => c.block.signatureFamily === 'gemini' && c.block.signature);
    t.calls.forEach((c, i) => {
      const { id, name, input, signature, signatureFamily } = c.block;
      c.part.functionCall = fromGemini ? { id, name, args: input } : { name, args: input };
      if (fromGemini) sent.add(id);
      if (signature && signatureFamily === 'gemini') c.part.thoughtSignature = signature;
      else {
        if (signature) notes.add(`gemini: dropped ${signatureFamily ?? 'unknown'} signatures of tool calls`);
        if (i === 0) {
          c.part.thoughtSignature = SKIP_SIGNATURE;
          placeholders++;
        }
      }
    });
    if (t.calls.length > 0 && !fromGemini)
      notes.add('gemini: foreign tool-call ids left out; Gemini pairs calls and responses by name and order');
  }
  if (placeholders > 0)
    notes.add(`gemini: "${SKIP_SIGNATURE}" put on ${placeholders} function call(s) without a Gemini thought signature`);
  return sent;
}

function contents(req: CanonicalRequest, notes: Set<string>): GeminiContent[] {
  const names = new Map<string, string>();
  for (const m of req.messages) for (const b of m.content) if (b.type === 'tool_call') names.set(b.id, b.name);
  const turns: Turn[] = [];
  for (const m of req.messages) {
    const t = turnOf(m, names, notes);
    if (t.parts.length + t.results.length + t.resultMedia.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role !== t.role) turns.push(t);
    else {
      last.results.push(...t.results);
      last.resultMedia.push(...t.resultMedia);
      last.parts.push(...t.parts);
      last.calls.push(...t.calls);
    }
  }
  // Without ids Gemini pairs responses with calls by order, so responses follow their calls' order.
  const order = new Map(turns.flatMap((t) => t.calls.map((c) => c.block.id)).map((id, i) => [id, i]));
  const at = (id: string): number => order.get(id) ?? Number.MAX_SAFE_INTEGER;
  for (const t of turns) t.results.sort((a, b) => at(a.callId) - at(b.callId));
  const sent = finishCalls(turns, notes);
  const out: GeminiContent[] = turns.map((t) => ({
    role: t.role,
    parts: [
      ...t.results.map((r): GeminiPart => ({
        functionResponse: sent.has(r.callId) ? { id: r.callId, ...r.response } : r.response,
      })),
      ...t.resultMedia,
      ...t.parts,
    ],
  }));
  if (out[0]?.role !== 'user') {
    out.unshift({ role: 'user', parts: [{ text: FILLER_USER_TEXT }] });
    notes.add(fillerTurnNote('gemini'));
  }
  return out;
}

function toolConfig(c: ToolChoice, notes: Set<string>): Record<string, unknown> {
  if (c.type !== 'none' && c.disableParallel)
    notes.add('gemini: dropped disable_parallel_tool_use (Gemini has no such setting)');
  const mode = c.type === 'auto' ? 'AUTO' : c.type === 'none' ? 'NONE' : 'ANY';
  return { functionCallingConfig: c.type === 'tool' ? { mode, allowedFunctionNames: [c.name] } : { mode } };
}

function thinkingConfig(req: CanonicalRequest, model: string, notes: Set<string>): Record<string, unknown> | undefined {
  const { thinking, reasoningEffort: effort } = req;
  if (thinking?.type === 'disabled') {
    notes.add('gemini: thinking "disabled" sent as no thinkingConfig (the model default applies, thoughts hidden)');
    return undefined;
  }
  if (thinking?.type === 'enabled') {
    if (effort) notes.add(`gemini: dropped reasoning effort "${effort}" (a thinking budget was given)`);
    return { thinkingBudget: thinking.budgetTokens, includeThoughts: true };
  }
  const shown = thinking?.type === 'adaptive';
  if (!effort) return thinking ? (shown ? { includeThoughts: true } : {}) : undefined;
  // Gemini 1.x/2.x know only budgets; later models take levels. Set, not spread in (V8's slow path in Node 20).
  const config: Record<string, unknown> = /^gemini-[12](?:\.|-|$)/.test(model)
    ? { thinkingBudget: EFFORT_BUDGET[effort] }
    : { thinkingLevel: effort.toUpperCase() };
  if (shown) config.includeThoughts = true;
  return config;
}

function generationConfig(req: CanonicalRequest, model: string, notes: Set<string>): Record<string, unknown> {
  const g: Record<string, unknown> = {};
  if (req.maxOutputTokens !== undefined) g.maxOutputTokens = req.maxOutputTokens;
  if (req.temperature !== undefined) {
    g.temperature = Math.min(2, Math.max(0, req.temperature));
    if (g.temperature !== req.temperature)
      notes.add(`gemini: temperature ${req.temperature} clamped to ${String(g.temperature)}`);
  }
  if (req.topP !== undefined) g.topP = req.topP;
  if (req.topK !== undefined) g.topK = req.topK;
  if (req.stopSequences?.length) {
    g.stopSequences = req.stopSequences.slice(0, MAX_STOP_SEQUENCES);
    if (req.stopSequences.length > MAX_STOP_SEQUENCES)
      notes.add(`gemini: only the first ${MAX_STOP_SEQUENCES} stop sequences were sent`);
  }
  if (req.seed !== undefined) g.seed = req.seed;
  if (req.presencePenalty !== undefined) g.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) g.frequencyPenalty = req.frequencyPenalty;
  const f = req.responseFormat;
  if (f?.type === 'text') g.responseMimeType = 'text/plain';
  else if (f) {
    g.responseMimeType = 'application/json';
    if (f.type === 'json_schema') g.responseJsonSchema = f.schema;
  }
  const thinking = thinkingConfig(req, model, notes);
  if (thinking) g.thinkingConfig = thinking;
  return g;
}

/** Canonical → Gemini request. What cannot be carried is dropped and listed in `notes`. */
export function toRequest(req: CanonicalRequest): GeminiUpstreamRequest {
  const notes = new Set<string>();
  const model = req.model.replace(/^models\//, '');
  const body: Record<string, unknown> = {};
  const system = req.system.flatMap(textPart);
  if (system.length > 0) body.systemInstruction = { parts: system };
  body.contents = contents(req, notes);
  if (req.tools.length > 0) {
    const functionDeclarations = req.tools.map((t) => {
      // Set one by one, not spread in: a spread in an object literal is V8's slow path in Node 20.
      const declaration: Record<string, unknown> = { name: t.name };
      if (t.description !== undefined) declaration.description = t.description;
      // parametersJsonSchema takes full JSON Schema (what Gemini CLI sends); it must describe an object.
      declaration.parametersJsonSchema =
        t.inputSchema.type === undefined ? { type: 'object', ...t.inputSchema } : t.inputSchema;
      return declaration;
    });
    body.tools = [{ functionDeclarations }];
    if (req.toolChoice) body.toolConfig = toolConfig(req.toolChoice, notes);
  } else if (req.toolChoice) notes.add('gemini: dropped tool_choice (no tools)');
  const g = generationConfig(req, model, notes);
  if (Object.keys(g).length > 0) body.generationConfig = g;
  if (req.user !== undefined) notes.add('gemini: dropped the end-user id (Gemini has no such field)');
  return {
    path: `/v1beta/models/${model}:${req.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: {},
    body,
    notes: [...notes],
  };
}
