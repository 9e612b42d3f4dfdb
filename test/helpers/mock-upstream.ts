/**
 * A mock upstream LLM server for tests: OpenAI Chat Completions and Anthropic Messages on 127.0.0.1,
 * speaking the vendors' real wire formats (/work/shared/protocols.md §1, §2). Behaviour is picked per
 * request by an optional `/s/<scenario>` path prefix, so several gateway lines can point at one mock
 * with different behaviour and no shared mutable state.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleepTimer } from 'node:timers/promises';

/**
 * Parsed `/s/<scenario>` prefix, e.g. `/s/delay=50,status=429,retry-after=2/v1/...`.
 * Values are URL-decoded after splitting on `,`, so a reply containing a comma is written `reply=a%2Cb`.
 */
export interface Scenario {
  /** The raw scenario segment, '' when the request had no prefix. */
  name: string;
  /** Wait this long before sending response headers (a huge value stalls until the client aborts). */
  delayMs: number;
  /** Reply with this HTTP status and a vendor-shaped error body. */
  status?: number;
  /** Value of the `retry-after` header sent with `status`. */
  retryAfter?: string;
  /** Streaming: send N events then cut the connection. Non-streaming: send half the body then cut. */
  dropAfter?: number;
  /** Pause between streamed events. */
  chunkDelayMs: number;
  /** Omit usage entirely, and never stream a usage chunk even if asked. */
  noUsage: boolean;
  /**
   * Forced usage. `input` is the WHOLE prompt, cache included, on both vendors, so one scenario yields the
   * same canonical usage whichever protocol the gateway speaks upstream: OpenAI reports it as
   * `prompt_tokens` (cached is a subset), Anthropic as `input_tokens = input - cached - cacheWrite`.
   */
  usage: { input?: number; output?: number; cached?: number; cacheWrite?: number };
  /** Send a body / one SSE event that is not valid JSON. */
  malformed: boolean;
  reply?: string;
  words?: number;
}

export interface RecordedRequest {
  method: string;
  /** Path after the scenario prefix, without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the raw string when the body is not JSON ('' when empty). */
  body: any;
  scenario: Scenario;
}

export interface MockUpstream {
  /** `http://127.0.0.1:PORT`, without `/v1`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Clears `requests` and `aborted`. */
  reset(): void;
  /** Destroys every open socket and stops listening. */
  close(): Promise<void>;
  /** Open TCP connections, idle keep-alive ones included. */
  openSockets(): number;
  /** Requests whose response has not finished yet. */
  inFlight(): number;
  /** Requests the client (gateway) aborted before the mock finished replying. */
  aborted: number;
}

/** `scenarioBase(m, 'status=500')` -> `${m.url}/s/status=500/v1`, an OpenAI-style base URL. */
export function scenarioBase(mock: MockUpstream, scenario: string): string {
  return scenario ? `${mock.url}/s/${scenario}/v1` : `${mock.url}/v1`;
}

export const MOCK_MODELS = ['mock-small', 'mock-large'] as const;

// setTimeout overflows above 2^31-1 ms and fires immediately, which would turn a "stall forever" into no delay.
const MAX_TIMER_MS = 2 ** 31 - 1;
const FINGERPRINT = 'fp_mock';

type Vendor = 'openai' | 'anthropic';
type Json = Record<string, any>;

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  scenario: Scenario;
  signal: AbortSignal;
  /** Set when the mock cuts the connection on purpose, so it is not counted as a client abort. */
  dropped: boolean;
  requestId: string;
}

interface SseFrame {
  event?: string;
  data: string;
}

interface ToolCall {
  id: string;
  name: string;
  args: string;
}

interface ToolSpec {
  name: string;
  schema: unknown;
}

interface TextReply {
  fragments: string[];
  text: string;
  /** Why generation ended, vendor-neutral. */
  end: 'stop' | 'length' | 'stop_sequence';
  stopSequence: string | null;
}

class ScenarioError extends Error {}

export async function startMockUpstream(opts: { port?: number } = {}): Promise<MockUpstream> {
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let closing = false;

  const server = createServer((req, res) => {
    const ac = new AbortController();
    const ex: Exchange = { req, res, scenario: parseScenario(''), signal: ac.signal, dropped: false, requestId: randomId(24) };
    inFlight++;
    res.on('close', () => {
      inFlight--;
      if (!res.writableFinished && !ex.dropped && !closing) mock.aborted++;
      ac.abort();
    });
    handle(ex, mock).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(ex, 'openai', 500, `mock internal error: ${String(err)}`);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const mock: MockUpstream = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: [],
    aborted: 0,
    reset() {
      mock.requests.length = 0;
      mock.aborted = 0;
    },
    openSockets: () => sockets.size,
    inFlight: () => inFlight,
    close() {
      closing = true;
      const socketsClosed = [...sockets].map((socket) => new Promise((resolve) => socket.once('close', resolve)));
      const serverClosed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      return Promise.all([serverClosed, ...socketsClosed]).then(() => undefined);
    },
  };
  return mock;
}

async function handle(ex: Exchange, mock: MockUpstream): Promise<void> {
  const url = new URL(ex.req.url ?? '/', 'http://127.0.0.1');
  const prefix = /^\/s\/([^/]*)(\/.*)?$/.exec(url.pathname);
  const path = prefix ? (prefix[2] ?? '/') : url.pathname;
  const vendor: Vendor =
    path.startsWith('/v1/messages') || (path.startsWith('/v1/models') && ex.req.headers['anthropic-version'])
      ? 'anthropic'
      : 'openai';

  const raw = await readBody(ex.req);
  if (raw === undefined) return; // client went away mid-upload
  const body = parseBody(raw);

  try {
    ex.scenario = parseScenario(prefix?.[1] ?? '');
  } catch (err) {
    return sendError(ex, vendor, 400, `mock scenario: ${(err as Error).message}`);
  }
  const method = ex.req.method ?? 'GET';
  mock.requests.push({ method, path, query: url.searchParams, headers: ex.req.headers, body, scenario: ex.scenario });

  if (!(await sleep(ex.scenario.delayMs, ex.signal))) return;
  const { status, retryAfter } = ex.scenario;
  if (status !== undefined && status >= 400) {
    return sendError(ex, vendor, status, 'mock error', retryAfter === undefined ? {} : { 'retry-after': retryAfter });
  }

  const route = `${method} ${path}`;
  if (method === 'HEAD' || route === 'GET /') return sendJson(ex, 200, {});
  if (route === 'POST /v1/chat/completions') return openAIChat(ex, body);
  if (route === 'POST /v1/messages') return anthropicMessages(ex, body);
  if (route === 'POST /v1/messages/count_tokens') return anthropicCountTokens(ex, body);
  if (method === 'GET' && path.startsWith('/v1/models')) return listModels(ex, vendor, path.slice('/v1/models'.length));
  const notFound = vendor === 'openai' ? `Invalid URL (${method} ${path})` : `Not found: ${method} ${path}`;
  return sendError(ex, vendor, 404, notFound);
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

function openAIChat(ex: Exchange, body: unknown): void | Promise<void> {
  if (!isObject(body)) return sendError(ex, 'openai', 400, 'We could not parse the JSON body of your request.');
  if (!Array.isArray(body.messages)) return sendError(ex, 'openai', 400, "Missing required parameter: 'messages'.", {}, 'messages');
  const messages: Json[] = body.messages.filter(isObject);
  const last = messages.at(-1);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t: any) => t?.type === 'function' && typeof t.function?.name === 'string')
    .map((t: any) => ({ name: t.function.name, schema: t.function.parameters }));

  let calls: ToolCall[] = [];
  if (last?.role === 'user' && tools.length > 0 && body.tool_choice !== 'none') {
    const forced = isObject(body.tool_choice) ? body.tool_choice.function?.name : undefined;
    calls = pickToolCalls(tools, forced, openAIText(last.content), body.parallel_tool_calls !== false, 'call_');
  }
  // Consecutive trailing tool messages answer one (possibly parallel) assistant turn.
  const toolResults: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i--) toolResults.unshift(openAIText(messages[i]?.content));
  const reply = shapeText(
    replyText(ex.scenario, toolResults.length ? toolResults.join('; ') : undefined, openAIText(lastUser?.content)),
    body.max_completion_tokens ?? body.max_tokens,
    stopList(body.stop),
  );

  const promptChars = messages.reduce((n, m) => n + openAIText(m.content).length + toolCallChars(m.tool_calls), 0);
  const u = resolveUsage(ex.scenario, promptChars, calls.length ? calls.length * 5 : reply.fragments.length);
  const usage = {
    prompt_tokens: u.prompt,
    completion_tokens: u.output,
    total_tokens: u.prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const finish = calls.length ? 'tool_calls' : reply.end === 'length' ? 'length' : 'stop';
  const id = `chatcmpl-${randomId(29)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = String(body.model ?? 'mock-small');
  const headers = { 'x-request-id': `req_${ex.requestId}` };

  if (body.stream !== true) {
    const message: Json = { role: 'assistant', content: calls.length ? null : reply.text, refusal: null, annotations: [] };
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
    }
    return sendJson(ex, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      ...(ex.scenario.noUsage ? {} : { usage }),
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
    }, headers);
  }

  const includeUsage = body.stream_options?.include_usage === true && !ex.scenario.noUsage;
  const chunk = (choices: Json[], extra: Json = {}): SseFrame => ({
    data: JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
      choices,
      // With include_usage every chunk carries `usage: null`, and only the extra final chunk has numbers.
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    }),
  });
  const delta = (d: Json, finishReason: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);

  const frames: SseFrame[] = [delta({ role: 'assistant', content: calls.length ? null : '', refusal: null })];
  if (calls.length) {
    calls.forEach((c, index) => frames.push(delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] })));
    // Parallel calls interleave their argument fragments; clients must join them by index, not by order.
    const pieces = calls.map((c) => splitInto(c.args, 3));
    for (let step = 0; step < Math.max(...pieces.map((p) => p.length)); step++) {
      pieces.forEach((p, index) => {
        const piece = p[step];
        if (piece !== undefined) frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      });
    }
  } else {
    for (const fragment of reply.fragments) frames.push(delta({ content: fragment }));
  }
  frames.push(delta({}, finish));
  if (includeUsage) frames.push(chunk([], { usage }));
  frames.push({ data: '[DONE]' });
  return sendStream(ex, frames, headers);
}

function openAIText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
}

function toolCallChars(toolCalls: unknown): number {
  if (!Array.isArray(toolCalls)) return 0;
  return toolCalls.reduce((n: number, c: any) => n + String(c?.function?.arguments ?? '').length, 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Anthropic Messages

function anthropicMessages(ex: Exchange, body: unknown): void | Promise<void> {
  const invalid = checkAnthropicHeaders(ex);
  if (invalid) return invalid;
  if (!isObject(body)) return sendError(ex, 'anthropic', 400, 'There was an issue with the request body: invalid JSON');
  if (!Array.isArray(body.messages)) return sendError(ex, 'anthropic', 400, 'messages: Field required');
  if (typeof body.max_tokens !== 'number') return sendError(ex, 'anthropic', 400, 'max_tokens: Field required');
  const messages: Json[] = body.messages.filter(isObject);
  const last = messages.at(-1);
  const lastBlocks = last ? anthropicBlocks(last.content) : [];
  const toolResults = lastBlocks.filter((b) => b.type === 'tool_result');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user' && anthropicBlocks(m.content).some((b) => b.type === 'text'));
  const userText = lastUser ? anthropicText(lastUser.content) : '';
  const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t: any) => typeof t?.name === 'string')
    .map((t: any) => ({ name: t.name, schema: t.input_schema }));
  const choice: Json = isObject(body.tool_choice) ? body.tool_choice : {};

  let calls: ToolCall[] = [];
  if (last?.role === 'user' && toolResults.length === 0 && tools.length > 0 && choice.type !== 'none') {
    const forced = choice.type === 'tool' ? choice.name : undefined;
    calls = pickToolCalls(tools, forced, anthropicText(last.content), choice.disable_parallel_tool_use !== true, 'toolu_');
  }
  const reply = shapeText(
    replyText(ex.scenario, toolResults.length ? toolResults.map((b) => anthropicText(b.content)).join('; ') : undefined, userText),
    body.max_tokens,
    stopList(body.stop_sequences),
  );

  const u = resolveUsage(ex.scenario, anthropicPromptChars(body), calls.length ? calls.length * 5 : reply.fragments.length);
  // Anthropic's input_tokens counts only the uncached part of the prompt (protocols.md §2, §6.11).
  const inputUsage = {
    input_tokens: Math.max(0, u.prompt - u.cached - u.cacheWrite),
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cached,
  };
  const fullUsage = (outputTokens: number) => ({
    ...inputUsage,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  });
  const stopReason = calls.length ? 'tool_use' : reply.end === 'length' ? 'max_tokens' : reply.end === 'stop_sequence' ? 'stop_sequence' : 'end_turn';
  const stopSequence = stopReason === 'stop_sequence' ? reply.stopSequence : null;
  const message = (content: Json[], stop: string | null, usage: Json): Json => ({
    id: `msg_${randomId(24)}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model ?? 'mock-small'),
    content,
    stop_reason: stop,
    stop_sequence: stop === null ? null : stopSequence,
    ...(ex.scenario.noUsage ? {} : { usage }),
  });
  const headers = { 'request-id': `req_${ex.requestId}` };

  if (body.stream !== true) {
    const content = calls.length
      ? calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args) }))
      : [{ type: 'text', text: reply.text }];
    return sendJson(ex, 200, message(content, stopReason, fullUsage(u.output)), headers);
  }

  const frames: SseFrame[] = [];
  const event = (data: Json) => frames.push({ event: data.type, data: JSON.stringify(data) });
  // Real message_start already carries the input usage; output_tokens there is a small placeholder.
  event({ type: 'message_start', message: message([], null, fullUsage(Math.min(1, u.output))) });
  event({ type: 'ping' });
  if (calls.length) {
    calls.forEach((c, index) => {
      event({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
      for (const partial_json of splitInto(c.args, 3)) event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      event({ type: 'content_block_stop', index });
    });
  } else {
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const text of reply.fragments) event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    event({ type: 'content_block_stop', index: 0 });
  }
  // message_delta usage is cumulative (totals so far), never an increment.
  event({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: stopSequence },
    ...(ex.scenario.noUsage ? {} : { usage: { ...inputUsage, output_tokens: u.output } }),
  });
  event({ type: 'message_stop' });
  return sendStream(ex, frames, headers);
}

function anthropicCountTokens(ex: Exchange, body: unknown): void | Promise<void> {
  const invalid = checkAnthropicHeaders(ex);
  if (invalid) return invalid;
  if (!isObject(body) || !Array.isArray(body.messages)) return sendError(ex, 'anthropic', 400, 'messages: Field required');
  return sendJson(ex, 200, { input_tokens: resolveUsage(ex.scenario, anthropicPromptChars(body), 0).prompt });
}

/** Returns the sent error when the request lacks what Anthropic requires, undefined otherwise. */
function checkAnthropicHeaders(ex: Exchange): void | Promise<void> | undefined {
  const h = ex.req.headers;
  if (!h['x-api-key'] && !/^Bearer\s+\S/i.test(h.authorization ?? '')) {
    return sendError(ex, 'anthropic', 401, 'x-api-key header is required');
  }
  // Only presence is checked: SDK 1.12.0 sends a newer date than 2023-06-01 (protocols.md §0).
  if (!h['anthropic-version']) return sendError(ex, 'anthropic', 400, 'anthropic-version: header is required');
  return undefined;
}

function anthropicBlocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function anthropicText(content: unknown): string {
  return anthropicBlocks(content)
    .map((b) => (typeof b.text === 'string' ? b.text : ''))
    .join('');
}

/** Characters of everything that is text in the prompt, counted the way openAIChat counts its messages. */
function anthropicPromptChars(body: Json): number {
  const blockChars = (b: Json): number => {
    if (b.type === 'tool_use') return JSON.stringify(b.input ?? {}).length;
    if (b.type === 'tool_result') return anthropicText(b.content).length;
    if (b.type === 'thinking') return String(b.thinking ?? '').length;
    return typeof b.text === 'string' ? b.text.length : 0;
  };
  const sum = (content: unknown) => anthropicBlocks(content).reduce((n, b) => n + blockChars(b), 0);
  return sum(body.system) + (body.messages as unknown[]).filter(isObject).reduce((n: number, m: Json) => n + sum(m.content), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Models

function listModels(ex: Exchange, vendor: Vendor, rest: string): void | Promise<void> {
  const openai = (id: string) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'mock' });
  const anthropic = (id: string) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' });
  const shape: (id: string) => Json = vendor === 'anthropic' ? anthropic : openai;
  if (rest === '' || rest === '/') {
    const data = MOCK_MODELS.map(shape);
    return sendJson(ex, 200, vendor === 'anthropic'
      ? { data, has_more: false, first_id: MOCK_MODELS[0], last_id: MOCK_MODELS.at(-1) }
      : { object: 'list', data });
  }
  const id = decodeURIComponent(rest.slice(1));
  if ((MOCK_MODELS as readonly string[]).includes(id)) return sendJson(ex, 200, shape(id));
  return sendError(ex, vendor, 404, `The model '${id}' does not exist`);
}

// ---------------------------------------------------------------------------------------------------------------
// Reply planning shared by both vendors

function replyText(s: Scenario, toolResult: string | undefined, userText: string): string {
  if (s.reply !== undefined) return s.reply;
  if (s.words !== undefined) return Array.from({ length: s.words }, (_, i) => `w${i + 1}`).join(' ');
  if (toolResult !== undefined) return `tool result: ${toolResult}`;
  return `mock reply to: ${userText.slice(0, 40)}`;
}

/** One word per fragment (leading space kept so the fragments join back to the text); a word is one token. */
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

function stopList(stop: unknown): string[] {
  if (typeof stop === 'string') return stop ? [stop] : [];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string' && s.length > 0) : [];
}

function pickToolCalls(tools: ToolSpec[], forced: unknown, userText: string, parallel: boolean, idPrefix: string): ToolCall[] {
  const named = typeof forced === 'string' ? tools.find((t) => t.name === forced) : undefined;
  const chosen = named ? [named] : parallel && tools.length >= 2 && /parallel/i.test(userText) ? tools.slice(0, 2) : tools.slice(0, 1);
  return chosen.map((t) => ({ id: `${idPrefix}${randomId(24)}`, name: t.name, args: JSON.stringify(sampleArguments(t.schema)) }));
}

/** One property per required parameter: "x" for strings, 1 for numbers, true for booleans. */
function sampleArguments(schema: unknown): Json {
  const args: Json = {};
  if (!isObject(schema) || !Array.isArray(schema.required)) return args;
  const properties: Json = isObject(schema.properties) ? schema.properties : {};
  for (const name of schema.required) {
    if (typeof name !== 'string') continue;
    const declared = properties[name]?.type;
    const type = Array.isArray(declared) ? declared.find((t) => t !== 'null') : declared;
    args[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'array' ? [] : type === 'object' ? {} : 'x';
  }
  return args;
}

function resolveUsage(s: Scenario, promptChars: number, outputTokens: number) {
  return {
    prompt: s.usage.input ?? Math.max(1, Math.ceil(promptChars / 4)),
    output: s.usage.output ?? outputTokens,
    cached: s.usage.cached ?? 0,
    cacheWrite: s.usage.cacheWrite ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Wire output

function sendError(ex: Exchange, vendor: Vendor, status: number, message: string, headers: Record<string, string> = {}, param: string | null = null): void {
  const body =
    vendor === 'openai'
      ? { error: { message, type: openAIErrorType(status)[0], param, code: openAIErrorType(status)[1] } }
      : { type: 'error', error: { type: anthropicErrorType(status), message }, request_id: `req_${ex.requestId}` };
  const idHeader = vendor === 'openai' ? 'x-request-id' : 'request-id';
  writeWhole(ex, status, JSON.stringify(body), { ...headers, [idHeader]: `req_${ex.requestId}` });
}

function openAIErrorType(status: number): [type: string, code: string | null] {
  const known: Record<number, [string, string | null]> = {
    401: ['invalid_request_error', 'invalid_api_key'],
    402: ['insufficient_quota', 'insufficient_quota'],
    404: ['invalid_request_error', 'model_not_found'],
    429: ['requests', 'rate_limit_exceeded'],
  };
  return known[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
}

function anthropicErrorType(status: number): string {
  const known: Record<number, string> = {
    401: 'authentication_error', 402: 'billing_error', 403: 'permission_error', 404: 'not_found_error',
    413: 'request_too_large', 429: 'rate_limit_error', 504: 'timeout_error', 529: 'overloaded_error',
  };
  return known[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** A successful JSON reply, honouring `malformed` and `drop-after`. */
function sendJson(ex: Exchange, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  let text = JSON.stringify(payload);
  if (ex.scenario.malformed) text = text.slice(0, Math.ceil(text.length / 2));
  if (ex.scenario.dropAfter === undefined) return writeWhole(ex, status, text, headers);
  if (ex.signal.aborted) return;
  const bytes = Buffer.from(text);
  ex.res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length, ...headers });
  ex.res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
  dropConnection(ex);
}

function writeWhole(ex: Exchange, status: number, text: string, headers: Record<string, string>): void {
  if (ex.signal.aborted || ex.res.headersSent) return;
  const bytes = Buffer.from(text);
  ex.res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length, ...headers });
  ex.res.end(bytes);
}

async function sendStream(ex: Exchange, frames: SseFrame[], headers: Record<string, string>): Promise<void> {
  const { malformed, dropAfter, chunkDelayMs } = ex.scenario;
  const next = frames[1];
  if (malformed && next) frames.splice(1, 0, { ...next, data: next.data.slice(0, Math.ceil(next.data.length / 2)) });
  if (ex.signal.aborted) return;
  ex.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  ex.res.flushHeaders();
  for (const [i, frame] of frames.entries()) {
    if (dropAfter !== undefined && i >= dropAfter) return dropConnection(ex);
    if (i > 0 && !(await sleep(chunkDelayMs, ex.signal))) return;
    if (ex.signal.aborted) return;
    ex.res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${frame.data}\n\n`);
  }
  if (dropAfter !== undefined && dropAfter >= frames.length) return dropConnection(ex);
  ex.res.end();
}

/** Ends the TCP connection without finishing the HTTP message, after flushing what was written. */
function dropConnection(ex: Exchange): void {
  ex.dropped = true;
  const socket = ex.res.socket;
  if (!socket) return;
  socket.end(() => socket.destroy());
}

// ---------------------------------------------------------------------------------------------------------------
// Small utilities

function parseScenario(raw: string): Scenario {
  const s: Scenario = { name: raw, delayMs: 0, chunkDelayMs: 0, noUsage: false, malformed: false, usage: {} };
  for (const part of raw.split(',')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    let value: string;
    try {
      value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
    } catch {
      throw new ScenarioError(`bad escape in "${part}"`);
    }
    const int = (): number => {
      const n = Number(value);
      if (value === '' || !Number.isInteger(n) || n < 0) throw new ScenarioError(`"${key}" needs a non-negative integer, got "${value}"`);
      return n;
    };
    switch (key) {
      case 'delay': s.delayMs = int(); break;
      case 'status': s.status = int(); break;
      case 'retry-after': s.retryAfter = value; break;
      case 'drop-after': s.dropAfter = int(); break;
      case 'chunk-delay': s.chunkDelayMs = int(); break;
      case 'no-usage': s.noUsage = true; break;
      case 'usage-in': s.usage.input = int(); break;
      case 'usage-out': s.usage.output = int(); break;
      case 'usage-cached': s.usage.cached = int(); break;
      case 'usage-cache-write': s.usage.cacheWrite = int(); break;
      case 'malformed': s.malformed = true; break;
      case 'reply': s.reply = value; break;
      case 'words': s.words = int(); break;
      default: throw new ScenarioError(`unknown key "${key}"`);
    }
  }
  return s;
}

/** Resolves to the raw body, or undefined if the client aborted while sending it. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string): unknown {
  try {
    return raw === '' ? '' : JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Resolves true after `ms`, or false as soon as the response is closed (timer cleared). */
async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleepTimer(Math.min(ms, MAX_TIMER_MS), undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Splits into at most `parts` non-empty pieces of near-equal length. */
function splitInto(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(length: number): string {
  return Array.from(randomBytes(length), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
