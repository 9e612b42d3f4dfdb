import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../core/errors.js';
import { markFirstByte, type Exchange, type Outcome } from '../../core/exchange.js';
import { sendJson, startSse, write } from '../../core/respond.js';
import { formatSse, readSse } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import type { Gateway } from '../../services.js';
import { ClientClosedError, upstreamFailure, upstreamStatusError, type UpstreamResponse } from '../http.js';
import { countChatUsage, producedByChunk, producedByCompletion } from './count.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';

export interface ChatBody {
  model: string;
  messages: { content?: unknown }[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  tools?: unknown[];
  [k: string]: unknown;
}

export interface PassthroughInput {
  gateway: Gateway;
  exchange: Exchange;
  body: ChatBody;
  res: ServerResponse;
  signal: AbortSignal;
  /** Written to the client error chunk when a started stream fails; in the inbound protocol's shape. */
  encodeStreamError(err: GatewayError): string;
}

/** `https://host/v1` + `/chat/completions`, keeping any path and query of the base URL. */
export function endpoint(baseUrl: string, path: string): URL {
  const u = new URL(baseUrl);
  u.pathname = u.pathname.replace(/\/+$/, '') + path;
  return u;
}

async function readError(res: UpstreamResponse): Promise<GatewayError> {
  let message: string | undefined;
  try {
    const text = (await res.body.text()).slice(0, 4000);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
      message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message ?? text);
    } catch {
      message = text;
    }
  } catch {
    // The body could not be read; the status alone must do.
  }
  const retryAfter = res.headers['retry-after'];
  return upstreamStatusError(res.status, message, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
}

/**
 * OpenAI chat in, `openai-chat` upstream out: the body goes through with only `model` rewritten
 * (and stream usage switched on), and the response comes back byte for byte while usage is
 * tapped on the way. Throws a GatewayError if nothing has been written to the client yet;
 * once a stream has started, failures end it with an in-band error chunk instead.
 */
export async function passthroughChat(input: PassthroughInput): Promise<Outcome> {
  const { gateway, exchange, body, signal } = input;
  const admission = exchange.admission!;
  const line = admission.line;
  const stream = body.stream === true;
  const clientWantsUsage = body.stream_options?.include_usage === true;
  const upstreamBody: ChatBody = { ...body, model: admission.upstreamModel };
  // Ask for the usage chunk so every stream can be billed from the upstream's own count;
  // a client that did not ask for it never sees it (below).
  if (stream) upstreamBody.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
  const credential = gateway.credentialFor(line);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'user-agent': 'Tollgate',
  };
  if (credential !== undefined) headers.authorization = `Bearer ${credential}`;

  const upstream = await gateway.upstream.send({
    lineId: line.id,
    url: endpoint(line.baseUrl, '/chat/completions'),
    headers,
    body: JSON.stringify(upstreamBody),
    timeouts: gateway.timeoutsFor(line),
    signal,
  });
  if (upstream.status >= 400) throw await readError(upstream);
  return stream ? relayStream(input, upstream, clientWantsUsage) : relayJson(input, upstream);
}

async function relayJson(input: PassthroughInput, upstream: UpstreamResponse): Promise<Outcome> {
  let text: string;
  try {
    text = await upstream.body.text();
  } catch (err) {
    throw upstreamFailure(err, input.signal);
  }
  let parsed: { usage?: OpenAIUsage; choices?: unknown[] };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new GatewayError('upstream_error', 'Upstream error: the upstream sent a response that is not valid JSON.', { code: 'upstream_malformed' });
  }
  let usage: Usage;
  let usageEstimated = false;
  if (parsed.usage) usage = fromOpenAIUsage(parsed.usage);
  else {
    usage = await countChatUsage(input.body, producedByCompletion(parsed as Parameters<typeof producedByCompletion>[0]));
    usageEstimated = true;
  }
  markFirstByte(input.exchange);
  sendJson(input.res, upstream.status, text, { 'x-request-id': input.exchange.requestId });
  return { status: upstream.status, usage, usageEstimated, error: null };
}

async function relayStream(input: PassthroughInput, upstream: UpstreamResponse, clientWantsUsage: boolean): Promise<Outcome> {
  const { res, exchange } = input;
  startSse(res, { 'x-request-id': exchange.requestId });
  let usage: Usage | undefined;
  let sawDone = false;
  let sawFinish = false;
  let inbandError: GatewayError | null = null;
  // Raw data of content chunks, parsed only if the upstream never reports usage.
  const contentChunks: string[] = [];

  try {
    for await (const ev of readSse(upstream.body)) {
      const data = ev.data;
      if (data === '[DONE]') {
        sawDone = true;
      } else if (data.includes('"usage":{')) {
        const chunk = JSON.parse(data) as { usage: OpenAIUsage; choices?: unknown[] };
        usage = fromOpenAIUsage(chunk.usage);
        if (Array.isArray(chunk.choices) && chunk.choices.length === 0) {
          if (!clientWantsUsage) continue;
        } else {
          contentChunks.push(data);
          sawFinish ||= data.includes('"finish_reason":"');
        }
      } else if (data.startsWith('{"error"')) {
        const msg = (JSON.parse(data) as { error?: { message?: string } }).error?.message;
        inbandError = new GatewayError('upstream_error', `Upstream error during the stream: ${msg ?? 'unknown'}`, { code: 'upstream_stream_error' });
      } else {
        // A cheap shape check instead of parsing every event: it catches a truncated or garbled
        // event before the client's SDK chokes on it.
        if (data.charCodeAt(0) !== 123 /* { */ || data.charCodeAt(data.length - 1) !== 125 /* } */) throw new SyntaxError('malformed event');
        contentChunks.push(data);
        if (!sawFinish && data.includes('"finish_reason":"')) sawFinish = true;
      }
      markFirstByte(exchange);
      const pending = write(res, formatSse(ev));
      if (pending) await pending;
      if (res.destroyed) throw new ClientClosedError();
    }
    if (!sawDone && !inbandError) {
      if (sawFinish && usage) {
        // Some compatible servers omit the terminator; the stream is complete, so add it.
        await write(res, 'data: [DONE]\n\n');
      } else {
        throw new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', { code: 'upstream_stream_incomplete' });
      }
    }
  } catch (err) {
    const failure =
      err instanceof SyntaxError
        ? new GatewayError('upstream_error', 'Upstream error: the upstream sent a stream event that is not valid JSON.', { code: 'upstream_malformed' })
        : upstreamFailure(err, input.signal);
    upstream.body.destroy();
    const clientGone = failure.code === 'client_closed' || res.destroyed;
    if (!clientGone) {
      await write(res, input.encodeStreamError(failure));
      res.end();
    }
    return finish(input, usage, contentChunks, clientGone ? 499 : failure.status, failure);
  }
  res.end();
  return finish(input, usage, contentChunks, inbandError ? inbandError.status : 200, inbandError);
}

async function finish(input: PassthroughInput, usage: Usage | undefined, contentChunks: string[], status: number, error: GatewayError | null): Promise<Outcome> {
  if (usage) return { status, usage, usageEstimated: false, error };
  let produced = '';
  for (const data of contentChunks) {
    try {
      produced += producedByChunk(JSON.parse(data) as Parameters<typeof producedByChunk>[0]);
    } catch {
      // A malformed fragment produced nothing countable.
    }
  }
  return { status, usage: await countChatUsage(input.body, produced), usageEstimated: true, error };
}
