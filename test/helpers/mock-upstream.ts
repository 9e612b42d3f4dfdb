/**
 * A mock upstream LLM server for tests, on 127.0.0.1, speaking the vendors' real wire formats
 * (docs/protocols.md §1-4): OpenAI Chat Completions and Responses, Anthropic Messages and the Gemini API.
 * Behaviour is picked per request by an optional `/s/<scenario>` path prefix (mock/scenario.ts), so several
 * gateway lines can point at one mock with different behaviour and no shared mutable state.
 *
 * This file is the server and the router; each wire format lives in mock/<format>.ts, and mock/reply.ts decides
 * what every format answers, so the same conversation gets the same reply and usage in all of them.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicCountTokens, anthropicError, anthropicMessages, anthropicModels } from './mock/anthropic.js';
import { gemini, geminiError, isGeminiPath } from './mock/gemini.js';
import {
  parseBody,
  randomId,
  readBody,
  sendHtml,
  sendJson,
  sleep,
  type ErrorWriter,
  type Exchange,
  type MockStats,
} from './mock/http.js';
import { openAIChat, openAIError, openAIModels } from './mock/openai-chat.js';
import { openAIResponsesCompact } from './mock/openai-compact.js';
import { openAIResponses } from './mock/openai-responses.js';
import { parseScenario, type Scenario } from './mock/scenario.js';

export type { Scenario } from './mock/scenario.js';

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
  /** `http://127.0.0.1:PORT` (`https://` when started with `tls`), without `/v1`. */
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
  /** Counters of the fault scenarios (endless streams and their backpressure). */
  stats: MockStats;
}

/** `scenarioBase(m, 'status=500')` -> `${m.url}/s/status=500/v1`, an OpenAI-style base URL. */
export function scenarioBase(mock: MockUpstream, scenario: string): string {
  return `${scenarioOrigin(mock, scenario)}/v1`;
}

/**
 * `scenarioOrigin(m, 'status=500')` -> `${m.url}/s/status=500`, a base URL for origin-style clients that add the
 * version themselves: the Anthropic SDK (`/v1/messages`) and the Gemini SDK (`/v1beta/models/…`).
 */
export function scenarioOrigin(mock: MockUpstream, scenario: string): string {
  return scenario ? `${mock.url}/s/${scenario}` : mock.url;
}

/** The rate-limit headers of the `ratelimit` scenario: Anthropic's on /v1/messages, OpenAI's elsewhere. */
export const RATE_LIMIT_RESET = 1_900_000_000;
function RATE_LIMIT_HEADERS(path: string): Record<string, string> {
  return path.startsWith('/v1/messages')
    ? {
        'anthropic-ratelimit-unified-5h-utilization': '0.42',
        'anthropic-ratelimit-unified-5h-reset': String(RATE_LIMIT_RESET),
        'anthropic-ratelimit-unified-5h-status': 'allowed',
        'anthropic-ratelimit-unified-7d-utilization': '0.1',
        'anthropic-ratelimit-unified-7d-reset': String(RATE_LIMIT_RESET + 86_400),
        'anthropic-ratelimit-unified-7d-status': 'allowed_warning',
      }
    : {
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '499',
        'x-ratelimit-reset-requests': '120ms',
        'x-ratelimit-limit-tokens': '30000',
        'x-ratelimit-remaining-tokens': '27000',
        'x-ratelimit-reset-tokens': '6m0s',
      };
}

export const MOCK_MODELS = ['mock-small', 'mock-large'] as const;

type Vendor = 'openai' | 'anthropic' | 'gemini';

const ERRORS: Record<Vendor, ErrorWriter> = { openai: openAIError, anthropic: anthropicError, gemini: geminiError };

/** `tls`: serve HTTPS with this key and certificate (PEM), as an upstream behind TLS inspection would. */
export async function startMockUpstream(
  opts: { port?: number; tls?: { key: string; cert: string } } = {},
): Promise<MockUpstream> {
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let closing = false;
  const listener = (handler: RequestListener) =>
    opts.tls ? createHttpsServer(opts.tls, handler) : createServer(handler);

  const server = listener((req, res) => {
    const ac = new AbortController();
    const target = parseTarget(req);
    const ex: Exchange = {
      req,
      res,
      query: target.query,
      scenario: parseScenario(''),
      signal: ac.signal,
      dropped: false,
      requestId: randomId(24),
      stats: mock.stats,
    };
    inFlight++;
    res.on('close', () => {
      inFlight--;
      if (!res.writableFinished && !ex.dropped && !closing) mock.aborted++;
      ac.abort();
    });
    handle(ex, target, mock).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else ERRORS[target.vendor](ex, 500, `mock internal error: ${String(err)}`);
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
    url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests: [],
    aborted: 0,
    stats: { endlessBytes: 0, waitingForDrain: 0 },
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

interface Target {
  /** Path after the scenario prefix. */
  path: string;
  query: URLSearchParams;
  /** The raw scenario segment, '' without a prefix. */
  scenario: string;
  /** Whose error shape and routes apply. */
  vendor: Vendor;
}

function parseTarget(req: IncomingMessage): Target {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const prefix = /^\/s\/([^/]*)(\/.*)?$/.exec(url.pathname);
  const path = prefix ? (prefix[2] ?? '/') : url.pathname;
  const h = req.headers;
  const models = path.startsWith('/v1/models');
  // GET /v1/models is shared by three vendors: the credential or version header says who is asking (§6.15).
  const vendor: Vendor =
    isGeminiPath(path) || (models && (h['x-goog-api-key'] !== undefined || url.searchParams.has('key')))
      ? 'gemini'
      : path.startsWith('/v1/messages') || (models && h['anthropic-version'])
        ? 'anthropic'
        : 'openai';
  return { path, query: url.searchParams, scenario: prefix?.[1] ?? '', vendor };
}

async function handle(ex: Exchange, target: Target, mock: MockUpstream): Promise<void> {
  const { path, vendor } = target;
  const raw = await readBody(ex.req);
  if (raw === undefined) return; // client went away mid-upload
  const body = parseBody(raw);
  const sendError = ERRORS[vendor];

  try {
    ex.scenario = parseScenario(target.scenario);
  } catch (err) {
    return sendError(ex, 400, `mock scenario: ${(err as Error).message}`);
  }
  const method = ex.req.method ?? 'GET';
  mock.requests.push({ method, path, query: target.query, headers: ex.req.headers, body, scenario: ex.scenario });

  if (!(await sleep(ex.scenario.delayMs, ex.signal))) return;
  const { status, retryAfter } = ex.scenario;
  if (status !== undefined && status >= 400) {
    return sendError(ex, status, 'mock error', retryAfter === undefined ? {} : { 'retry-after': retryAfter });
  }

  const route = `${method} ${path}`;
  if (ex.scenario.ratelimit) for (const [k, v] of Object.entries(RATE_LIMIT_HEADERS(path))) ex.res.setHeader(k, v);
  if (ex.scenario.html && method === 'POST') return sendHtml(ex);
  if (method === 'HEAD' || route === 'GET /') return sendJson(ex, 200, {});
  if (vendor === 'gemini') return gemini(ex, method, path, body, MOCK_MODELS);
  if (route === 'POST /v1/chat/completions') return openAIChat(ex, body);
  if (route === 'POST /v1/responses') return openAIResponses(ex, body);
  if (route === 'POST /v1/responses/compact') return openAIResponsesCompact(ex, body);
  if (route === 'POST /v1/messages') return anthropicMessages(ex, body);
  if (route === 'POST /v1/messages/count_tokens') return anthropicCountTokens(ex, body);
  if (method === 'GET' && path.startsWith('/v1/models')) {
    const rest = path.slice('/v1/models'.length);
    const listed = ex.scenario.models ?? MOCK_MODELS;
    return vendor === 'anthropic'
      ? anthropicModels(ex, listed, rest)
      : openAIModels(ex, listed, rest, ex.scenario.openrouter);
  }
  return sendError(ex, 404, vendor === 'openai' ? `Invalid URL (${method} ${path})` : `Not found: ${method} ${path}`);
}
