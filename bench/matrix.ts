/**
 * What the bench measures: the paths a request can take (direct to the mock, or through Tollgate on a
 * pass-through or translated route), the phases each path runs (concurrency × upstream behaviour × streaming),
 * and the exact HTTP request for every path and phase.
 */

/** Client wire formats: the inbound protocol of a gateway path, or what the client speaks to the mock directly. */
export type Wire = 'openai-chat' | 'anthropic' | 'openai-responses';
/** Upstream protocols of gateway lines (the ids `POST /api/lines` accepts). */
export type LineProtocol = 'openai-chat' | 'anthropic';
/** How the mock upstream answers, chosen by the `/s/<scenario>` prefix of a line's base URL. */
export type Upstream = 'fast' | 'slow' | 'stream';

/**
 * Short replies (20 words) so the gateway's own overhead dominates. `slow` waits 50 ms before answering, like a
 * real model's first token; `stream` spaces its events 5 ms apart (about 0.1 s per stream), so streams overlap
 * as they do with real models and time to first byte measures the gateway rather than a queue.
 */
export const SCENARIOS: Record<Upstream, string> = {
  fast: 'words=20',
  slow: 'words=20,delay=50',
  stream: 'words=20,chunk-delay=5',
};

/**
 * Each (line protocol, upstream behaviour) pair is one line serving one catalogue model, since the model decides
 * the line. Cheap models, and the wallet is topped up far beyond what a run spends, so billing never answers 402.
 */
export const LINE_MODELS: Record<LineProtocol, Record<Upstream, string>> = {
  'openai-chat': { fast: 'gpt-5-nano', slow: 'gpt-4o-mini', stream: 'gpt-5.4-nano' },
  anthropic: { fast: 'claude-haiku-4-5', slow: 'claude-haiku-4-5-20251001', stream: 'claude-sonnet-4-6' },
};

export interface BenchPath {
  id: string;
  label: string;
  /** `reference`: the bare proxy of bench/reference-proxy.ts, a yardstick that no target applies to. */
  kind: 'direct' | 'reference' | 'pass-through' | 'translated';
  /** Who the client talks to. */
  via: 'mock' | 'proxy' | 'gateway';
  wire: Wire;
  /** The gateway line's protocol (gateway paths only). */
  line?: LineProtocol;
  /** The direct path this one is compared with: the same client wire format, straight to the mock. */
  baseline: string;
  /** Run only when named (`--paths`): not in the default matrix, its report or its targets. */
  onDemand?: boolean;
}

export const PATHS: readonly BenchPath[] = [
  {
    id: 'direct-chat',
    label: 'direct · OpenAI chat',
    kind: 'direct',
    via: 'mock',
    wire: 'openai-chat',
    baseline: 'direct-chat',
  },
  {
    id: 'direct-messages',
    label: 'direct · Messages',
    kind: 'direct',
    via: 'mock',
    wire: 'anthropic',
    baseline: 'direct-messages',
  },
  {
    id: 'direct-responses',
    label: 'direct · Responses',
    kind: 'direct',
    via: 'mock',
    wire: 'openai-responses',
    baseline: 'direct-responses',
  },
  {
    id: 'proxy-chat',
    label: 'bare Fastify proxy · OpenAI chat (reference)',
    kind: 'reference',
    via: 'proxy',
    wire: 'openai-chat',
    baseline: 'direct-chat',
  },
  {
    id: 'chat>openai-chat',
    label: 'Tollgate · OpenAI chat → openai-chat',
    kind: 'pass-through',
    via: 'gateway',
    wire: 'openai-chat',
    line: 'openai-chat',
    baseline: 'direct-chat',
  },
  {
    id: 'messages>anthropic',
    label: 'Tollgate · Messages → anthropic',
    kind: 'pass-through',
    via: 'gateway',
    wire: 'anthropic',
    line: 'anthropic',
    baseline: 'direct-messages',
  },
  {
    id: 'messages>openai-chat',
    label: 'Tollgate · Messages → openai-chat',
    kind: 'translated',
    via: 'gateway',
    wire: 'anthropic',
    line: 'openai-chat',
    baseline: 'direct-messages',
  },
  {
    id: 'responses>anthropic',
    label: 'Tollgate · Responses → anthropic',
    kind: 'translated',
    via: 'gateway',
    wire: 'openai-responses',
    line: 'anthropic',
    baseline: 'direct-responses',
  },
  {
    // The chat client's encoder on a translated path (Messages → openai-chat measures the chat upstream side).
    id: 'chat>anthropic',
    label: 'Tollgate · OpenAI chat → anthropic',
    kind: 'translated',
    via: 'gateway',
    wire: 'openai-chat',
    line: 'anthropic',
    baseline: 'direct-chat',
    onDemand: true,
  },
];

export interface Phase {
  id: string;
  label: string;
  concurrency: number;
  upstream: Upstream;
  stream: boolean;
}

export const PHASES: readonly Phase[] = [
  { id: 'c1', label: 'non-streaming, c=1, no upstream delay', concurrency: 1, upstream: 'fast', stream: false },
  { id: 'c16', label: 'non-streaming, c=16, no upstream delay', concurrency: 16, upstream: 'fast', stream: false },
  { id: 'c64', label: 'non-streaming, c=64, no upstream delay', concurrency: 64, upstream: 'fast', stream: false },
  {
    id: 'c16-delay50',
    label: 'non-streaming, c=16, 50 ms upstream delay',
    concurrency: 16,
    upstream: 'slow',
    stream: false,
  },
  {
    id: 'stream-c16',
    label: 'streaming, c=16, 20 events 5 ms apart',
    concurrency: 16,
    upstream: 'stream',
    stream: true,
  },
];

interface WireSpec {
  /** Request path, after the origin (and, to the mock, after the scenario prefix). */
  path: string;
  headers(key: string): Record<string, string>;
  body(model: string, stream: boolean): string;
  /** What a complete stream of this format contains last: the protocol's end-of-stream marker. */
  terminator: string;
}

/**
 * A 2 KB conversation, about what a chat client sends on a short turn: a system prompt, an earlier exchange and
 * the question. The reply stays short (the mock answers 20 words), so the gateway's own cost dominates.
 */
const SYSTEM =
  'You are a careful assistant inside a developer tool. Answer in plain English, keep answers short, and say so ' +
  'when you are not sure. When the user pastes code, read all of it before answering, name the file and the line ' +
  'you mean, and prefer a small change that keeps the style of the surrounding code over a rewrite. Never invent ' +
  'APIs: if a function is not in the code shown or in the standard library, say that you would need to see it. ' +
  'Format code in fenced blocks with the language named, and keep prose outside them. If a question has two ' +
  'readings, answer the likelier one and say in one line what you assumed, so the user can correct you without ' +
  'reading a second long answer; if a change could break callers elsewhere, say which ones you would check.';
const EARLIER_QUESTION =
  'Here is a function that reads a config file and merges it with the defaults. It works, but reviewers say it is ' +
  'hard to follow. Could you point out what makes it hard to read?\n\nfunction load(path) {\n  const text = ' +
  "fs.readFileSync(path, 'utf8');\n  const parsed = JSON.parse(text);\n  const out = {};\n  for (const k of " +
  'Object.keys(DEFAULTS)) {\n    out[k] = parsed[k] === undefined ? DEFAULTS[k] : parsed[k];\n  }\n  return out;\n}';
const EARLIER_ANSWER =
  'Three things stand out. The name load says nothing about the merge, so a reader has to open it to learn that ' +
  'missing keys fall back to defaults. Keys in the file that are not in the defaults are dropped without a word, ' +
  'which surprises whoever adds a setting to the file first. And a file that is not valid JSON throws a bare ' +
  'SyntaxError with no path in it. Renaming it, warning about unknown keys and wrapping the parse error with the ' +
  'path would fix all three without changing what it returns.';
const QUESTION = 'Thanks. Reply with twenty short words on which of the three to fix first, and why.';

const CHAT_MESSAGES = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: EARLIER_QUESTION },
  { role: 'assistant', content: EARLIER_ANSWER },
  { role: 'user', content: QUESTION },
];
const TURNS = CHAT_MESSAGES.slice(1);

const WIRES: Record<Wire, WireSpec> = {
  'openai-chat': {
    path: '/v1/chat/completions',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (model, stream) =>
      JSON.stringify({
        model,
        max_tokens: 64,
        messages: CHAT_MESSAGES,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      }),
    terminator: 'data: [DONE]',
  },
  anthropic: {
    path: '/v1/messages',
    headers: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    body: (model, stream) =>
      JSON.stringify({ model, max_tokens: 64, system: SYSTEM, messages: TURNS, ...(stream ? { stream: true } : {}) }),
    terminator: 'event: message_stop',
  },
  'openai-responses': {
    path: '/v1/responses',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (model, stream) =>
      JSON.stringify({
        model,
        max_output_tokens: 64,
        instructions: SYSTEM,
        input: TURNS,
        ...(stream ? { stream: true } : {}),
      }),
    terminator: 'event: response.completed',
  },
};

export interface BenchRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  terminator: string;
}

export interface Endpoints {
  mockUrl: string;
  /** The reference proxy, which forwards any path (scenario prefix included) to the mock. */
  proxyUrl: string;
  /** The key the mock expects (it checks only that one is present). */
  upstreamKey: string;
  gatewayUrl: string;
  /** The Tollgate `sk-` key. */
  gatewayKey: string;
}

export function requestFor(path: BenchPath, phase: Phase, at: Endpoints): BenchRequest {
  const wire = WIRES[path.wire];
  const mockPath = `/s/${SCENARIOS[phase.upstream]}${wire.path}`;
  const [url, key, model] =
    path.line !== undefined
      ? [`${at.gatewayUrl}${wire.path}`, at.gatewayKey, LINE_MODELS[path.line][phase.upstream]]
      : [`${path.via === 'proxy' ? at.proxyUrl : at.mockUrl}${mockPath}`, at.upstreamKey, 'mock-small'];
  return {
    url,
    headers: { 'content-type': 'application/json', ...wire.headers(key) },
    body: wire.body(model, phase.stream),
    terminator: wire.terminator,
  };
}
