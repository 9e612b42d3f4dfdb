import { createHash } from 'node:crypto';
import type {
  CacheControl,
  CanonicalMessage,
  CanonicalRequest,
  ContentBlock,
  DocumentBlock,
  MediaSource,
  ReasoningEffort,
  TextBlock,
  Thinking,
  ToolChoice,
  ToolDefinition,
} from '../../core/canonical.js';
import type { TargetLine, UpstreamRequest } from '../../core/codec.js';
import type { Quirks } from '../../core/quirks.js';
import { FILLER_USER_TEXT, fillerTurnNote } from '../../core/shaping.js';
import { droppedNote } from '../../core/reasoning.js';
import { loopWithoutThinking, THINKING_OFF_NOTE } from './history.js';
import { STRUCTURED_OUTPUT_HEADER, structuredOutput } from './structured.js';
import { refusedNote, versionRules, type VersionRules } from './versions.js';

/** Messages requires `max_tokens`; OpenAI and Gemini clients may leave it out, so this fills the gap. */
export const DEFAULT_MAX_TOKENS = 4096;
/** The user turn put in front of a conversation that would otherwise not start with one. */

/** A Messages content block as sent on the wire (the shapes are documented in docs/protocols.md §2). */
export interface WireBlock {
  type: string;
  [field: string]: unknown;
}
export interface WireMessage {
  role: 'user' | 'assistant';
  content: WireBlock[];
}

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Anthropic rejects tool ids outside `^[a-zA-Z0-9_-]+$`, and other vendors produce such ids (Kimi's
 * `functions.bash:0`, for one). Valid ids pass unchanged; others get their bad characters replaced
 * and a hash of the original appended, so the mapping is deterministic (a tool_use and its
 * tool_result still match, across requests too) and two ids that differ only in bad characters
 * stay distinct. Idempotent: an id it produced is valid and passes unchanged.
 */
export function anthropicToolId(id: string): string {
  if (TOOL_ID.test(id)) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu'}_${hash}`;
}

function cache(block: WireBlock, cc: CacheControl | undefined): WireBlock {
  return cc ? { ...block, cache_control: { ...cc } } : block;
}

function source(s: MediaSource | DocumentBlock['source']): Record<string, unknown> {
  switch (s.kind) {
    case 'base64':
      return { type: 'base64', media_type: s.mediaType, data: s.data };
    case 'url':
      return { type: 'url', url: s.url };
    case 'file':
      return { type: 'file', file_id: s.fileId };
    case 'text':
      // PlainTextSource allows only text/plain.
      return { type: 'text', media_type: 'text/plain', data: s.data };
  }
}

function text(b: TextBlock): WireBlock | undefined {
  // Anthropic rejects empty text blocks; OpenAI clients send `content: ""` beside tool calls.
  if (b.text === '') return undefined;
  return cache(
    b.citations ? { type: 'text', text: b.text, citations: b.citations } : { type: 'text', text: b.text },
    b.cacheControl,
  );
}

function block(b: ContentBlock, notes: string[]): WireBlock | undefined {
  switch (b.type) {
    case 'text':
      return text(b);
    case 'image':
      return cache({ type: 'image', source: source(b.source) }, b.cacheControl);
    case 'document':
      return cache(
        b.title === undefined
          ? { type: 'document', source: source(b.source) }
          : { type: 'document', source: source(b.source), title: b.title },
        b.cacheControl,
      );
    case 'thinking':
      // Signatures verify only within the family that made them, and Anthropic rejects unsigned
      // thinking, so foreign or unsigned thinking is dropped (docs/protocols.md §6.6).
      if (b.family !== 'anthropic' || !b.signature) {
        notes.push(droppedNote('anthropic', 'a thinking block', b.family, !b.signature));
        return undefined;
      }
      return { type: 'thinking', thinking: b.text, signature: b.signature };
    case 'redacted_thinking':
      if (b.family !== 'anthropic') {
        notes.push(droppedNote('anthropic', 'a redacted_thinking block', b.family));
        return undefined;
      }
      return { type: 'redacted_thinking', data: b.data };
    case 'tool_call':
      // tool_use has no signature field: a Gemini thought signature cannot travel to Anthropic.
      if (b.signature)
        notes.push(`anthropic: dropped the ${b.signatureFamily ?? 'unknown'} signature of tool call ${b.id}`);
      return cache({ type: 'tool_use', id: anthropicToolId(b.id), name: b.name, input: b.input }, b.cacheControl);
    case 'compaction':
      // Only OpenAI can read it; the relay's note says so once (core/shaping.ts uncarriedStateNotes).
      return undefined;
    case 'tool_result': {
      const content = b.content.flatMap((c) =>
        c.type === 'text' ? (text(c) ?? []) : [cache({ type: 'image', source: source(c.source) }, c.cacheControl)],
      );
      const wire: WireBlock = { type: 'tool_result', tool_use_id: anthropicToolId(b.toolCallId) };
      if (content.length > 0) wire.content = content;
      if (b.isError !== undefined) wire.is_error = b.isError;
      return cache(wire, b.cacheControl);
    }
  }
}

/**
 * A canonical `system` message between turns (Claude Code's mid-conversation system messages, an
 * OpenAI `developer` message after the first turn) becomes user-turn text wrapped in
 * `<system-reminder>` tags. Not every Anthropic-compatible upstream accepts `role:"system"` inside
 * `messages`, and moving the text into the top-level `system` would change its position (and break
 * prompt caching of the prefix); the tags are how Claude Code itself marks out-of-band instructions
 * inside user turns, so the model does not read them as the user speaking.
 */
function systemAsUser(m: CanonicalMessage): WireBlock[] {
  return m.content.flatMap((b) =>
    b.type === 'text' && b.text !== ''
      ? [cache({ type: 'text', text: `<system-reminder>\n${b.text}\n</system-reminder>` }, b.cacheControl)]
      : [],
  );
}

/**
 * Messages wants user and assistant turns to alternate, starting with user, and `tool_result`
 * blocks first in their user turn. Consecutive same-role messages are merged (after empty ones
 * are dropped), and a filler user turn is put in front when the first turn is the assistant's.
 */
function toMessages(req: CanonicalRequest, rules: VersionRules, notes: string[]): WireMessage[] {
  const turns: WireMessage[] = [];
  let hadSystem = false;
  for (const m of req.messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    hadSystem ||= m.role === 'system';
    const content =
      m.role === 'system' ? systemAsUser(m) : fitVersion(m, rules, notes).flatMap((b) => block(b, notes) ?? []);
    if (content.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  }
  if (hadSystem) notes.push('anthropic: mid-conversation system messages sent as <system-reminder> user text');
  for (const t of turns) {
    // Reordered only when a tool_result comes after other content: most turns are in order already.
    if (t.role === 'user' && resultAfterOther(t.content))
      t.content = [
        ...t.content.filter((b) => b.type === 'tool_result'),
        ...t.content.filter((b) => b.type !== 'tool_result'),
      ];
  }
  if (turns[0]?.role !== 'user') {
    turns.unshift({ role: 'user', content: [{ type: 'text', text: FILLER_USER_TEXT }] });
    notes.push(fillerTurnNote('anthropic'));
  }
  return turns;
}

/** A tool_result block follows a block of another type. */
function resultAfterOther(content: readonly WireBlock[]): boolean {
  let other = false;
  for (const b of content) {
    if (b.type !== 'tool_result') other = true;
    else if (other) return true;
  }
  return false;
}

/** A message's blocks less what the line's API version refuses (versions.ts). */
function fitVersion(m: CanonicalMessage, rules: VersionRules, notes: string[]): ContentBlock[] {
  if (m.role === 'assistant' && rules.noAssistantDocuments && m.content.some((b) => b.type === 'document')) {
    notes.push(refusedNote(rules, 'a document block in an assistant message'));
    return m.content.filter((b) => b.type !== 'document');
  }
  if (m.role === 'user' && rules.noUserCitations && m.content.some((b) => b.type === 'text' && b.citations?.length)) {
    notes.push(refusedNote(rules, 'citations on user text'));
    return m.content.map((b) => {
      if (b.type !== 'text' || !b.citations) return b;
      const { citations: _dropped, ...rest } = b;
      return rest;
    });
  }
  return m.content;
}

function tool(t: ToolDefinition): Record<string, unknown> {
  // input_schema must be an object schema; OpenAI allows `parameters: {}` for a tool without arguments.
  const schema = t.inputSchema.type === undefined ? { type: 'object', ...t.inputSchema } : t.inputSchema;
  const wire: Record<string, unknown> = { name: t.name };
  if (t.description !== undefined) wire.description = t.description;
  wire.input_schema = schema;
  if (t.strict !== undefined) wire.strict = t.strict;
  if (t.cacheControl) wire.cache_control = { ...t.cacheControl };
  return wire;
}

function toolChoice(c: ToolChoice): Record<string, unknown> {
  if (c.type === 'none') return { type: 'none' };
  const wire: Record<string, unknown> = c.type === 'tool' ? { type: 'tool', name: c.name } : { type: c.type };
  if (c.disableParallel !== undefined) wire.disable_parallel_tool_use = c.disableParallel;
  return wire;
}

/** Budgets for an effort level where a budget is needed: each reads back as the same level (core/shaping.ts effortOf). */
const EFFORT_BUDGET: Record<ReasoningEffort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 24576 };

/** Claude 4.6 and later think adaptively (and the newest refuse a fixed budget); earlier ones take a budget. */
export function adaptiveModel(model: string): boolean {
  const m = /^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?:-|$)/.exec(model);
  if (!m) return false;
  const major = Number(m[1]);
  return major > 4 || (major === 4 && Number(m[2] ?? 0) >= 6);
}

/**
 * The thinking to ask for: the client's own, or, when it gave only a reasoning effort (OpenAI
 * and Gemini clients: Codex's `reasoning.effort`), thinking at that effort: adaptive with
 * `output_config.effort` on models that think adaptively, else a budget for the level.
 */
function thinkingOf(req: CanonicalRequest, notes: string[]): Thinking | undefined {
  if (req.thinking || !req.reasoningEffort) return req.thinking;
  if (adaptiveModel(req.model)) return { type: 'adaptive' };
  notes.push(
    `anthropic: reasoning effort "${req.reasoningEffort}" sent as a thinking budget of ${EFFORT_BUDGET[req.reasoningEffort]} tokens`,
  );
  return { type: 'enabled', budgetTokens: EFFORT_BUDGET[req.reasoningEffort] };
}

/** temperature, top_p and top_k, where the line's version takes them (versions.ts). */
function sampling(req: CanonicalRequest, body: Record<string, unknown>, rules: VersionRules, notes: string[]): void {
  if (rules.noSampling) {
    for (const [name, value] of [
      ['temperature', req.temperature],
      ['top_p', req.topP],
      ['top_k', req.topK],
    ] as const)
      if (value !== undefined) notes.push(refusedNote(rules, name));
    return;
  }
  if (req.temperature !== undefined) {
    // OpenAI and Gemini allow 0–2, Anthropic 0–1 (docs/protocols.md §6.17).
    body.temperature = Math.min(1, Math.max(0, req.temperature));
    if (body.temperature !== req.temperature)
      notes.push(`anthropic: temperature ${req.temperature} clamped to ${String(body.temperature)}`);
  }
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) body.top_k = req.topK;
}

/** Canonical → Messages request. What cannot be carried is dropped and recorded in `req.notes` (the request's log channel). */
export function toRequest(req: CanonicalRequest, quirks?: Quirks, line?: TargetLine): UpstreamRequest {
  const notes = req.notes;
  const rules = versionRules(line);
  const system = [...req.system];
  const structured = structuredOutput(req.responseFormat, quirks);
  if (structured && 'instruction' in structured) {
    system.push(structured.instruction);
    notes.push(
      `anthropic: structured output (${req.responseFormat!.type}) only asked for in the system prompt: ${req.responseFormat!.type === 'json_object' ? 'a JSON object without a schema has no native form' : "this line's upstream has no native structured output"}`,
    );
  }
  const thinking = thinkingOf(req, notes);
  const budget = thinking?.type === 'enabled' ? thinking.budgetTokens : 0;
  // budget_tokens must stay below max_tokens; only the default is raised, never the client's own value.
  const body: Record<string, unknown> = {
    model: req.model,
    max_tokens:
      req.maxOutputTokens ?? (budget >= DEFAULT_MAX_TOKENS ? budget + DEFAULT_MAX_TOKENS : DEFAULT_MAX_TOKENS),
  };
  const systemBlocks = system.flatMap((b) => text(b) ?? []);
  if (systemBlocks.length > 0) body.system = systemBlocks;
  body.messages = toMessages(req, rules, notes);
  if (req.tools.length > 0) body.tools = req.tools.map(tool);
  if (req.toolChoice) {
    // Anthropic rejects tool_choice without tools.
    if (req.tools.length > 0) body.tool_choice = toolChoice(req.toolChoice);
    else notes.push('anthropic: dropped tool_choice (no tools)');
  }
  if (thinking)
    body.thinking =
      thinking.type === 'enabled' ? { type: 'enabled', budget_tokens: thinking.budgetTokens } : { type: thinking.type };
  if (thinking && thinking.type !== 'disabled' && loopWithoutThinking(body.messages as WireMessage[])) {
    body.thinking = { type: 'disabled' };
    notes.push(THINKING_OFF_NOTE);
  }
  if (req.reasoningEffort) {
    // output_config.effort goes with adaptive thinking (what Claude Code sends); elsewhere a budget or nothing decides.
    if (thinking?.type === 'adaptive')
      body.output_config = { effort: req.reasoningEffort === 'minimal' ? 'low' : req.reasoningEffort };
    else if (req.thinking)
      notes.push(`anthropic: dropped reasoning effort "${req.reasoningEffort}" (thinking is not adaptive)`);
  }
  if (structured && 'format' in structured)
    body.output_config = { ...(body.output_config as object | undefined), format: structured.format };
  if (req.user !== undefined) body.metadata = { user_id: req.user };
  if (req.stopSequences !== undefined) body.stop_sequences = req.stopSequences;
  sampling(req, body, rules, notes);
  if (req.stream) body.stream = true;
  for (const [name, value] of [
    ['seed', req.seed],
    ['presence_penalty', req.presencePenalty],
    ['frequency_penalty', req.frequencyPenalty],
  ] as const) {
    if (value !== undefined) notes.push(`anthropic: dropped ${name} (Messages has no such parameter)`);
  }
  const out: UpstreamRequest = {
    path: '/v1/messages',
    headers: { 'anthropic-version': rules.version, 'content-type': 'application/json' },
    body,
  };
  if (structured && 'instruction' in structured) out.clientHeaders = { [STRUCTURED_OUTPUT_HEADER]: 'prompt' };
  return out;
}
