import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../core/errors.js';
import type { Exchange, Outcome } from '../../core/exchange.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { passthrough, upstreamBody, type StreamTap } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import type { Gateway } from '../../services.js';
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

export interface ChatPassthroughInput {
  gateway: Gateway;
  exchange: Exchange;
  body: ChatBody;
  /** The request body exactly as the client sent it. */
  rawBody: string;
  res: ServerResponse;
  signal: AbortSignal;
  encodeStreamError(err: GatewayError): string;
}

/**
 * Reads a Chat Completions stream as it passes: usage from the final usage chunk (scanned for,
 * not parsed out of every event), `[DONE]`, in-band errors. The usage chunk is dropped when the
 * client did not ask for it: Tollgate asked on its own behalf.
 */
export class ChatStreamTap implements StreamTap {
  private found: Usage | undefined;
  private done = false;
  private finished = false;
  private failure: GatewayError | null = null;
  private readonly chunks: string[] = [];

  constructor(private readonly clientWantsUsage: boolean) {}

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    if (data === '[DONE]') {
      this.done = true;
      return true;
    }
    assertJsonObjectShape(data);
    if (data.includes('"usage":{')) {
      const chunk = JSON.parse(data) as { usage: OpenAIUsage; choices?: unknown[] };
      this.found = fromOpenAIUsage(chunk.usage);
      if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return this.clientWantsUsage;
    } else if (data.startsWith('{"error"')) {
      const msg = (JSON.parse(data) as { error?: { message?: string } }).error?.message;
      this.failure = upstreamStreamError(msg);
      return true;
    }
    this.chunks.push(data);
    this.finished ||= data.includes('"finish_reason":"');
    return true;
  }

  usage(): Usage | undefined {
    return this.found;
  }
  complete(): boolean {
    return this.done;
  }
  repairTail(): string | undefined {
    // Some compatible servers omit the terminator; a stream that finished and reported usage is whole.
    return this.finished && this.found ? 'data: [DONE]\n\n' : undefined;
  }
  error(): GatewayError | null {
    return this.failure;
  }
  produced(): string {
    let out = '';
    for (const data of this.chunks) {
      try {
        out += producedByChunk(JSON.parse(data) as Parameters<typeof producedByChunk>[0]);
      } catch {
        // A malformed fragment produced nothing countable.
      }
    }
    return out;
  }
}

function upstreamStreamError(message: string | undefined): GatewayError {
  return new GatewayError('upstream_error', `Upstream error during the stream: ${message ?? 'unknown'}`, { code: 'upstream_stream_error' });
}

/**
 * OpenAI chat in, `openai-chat` upstream out: only `model` is rewritten, and stream usage is
 * switched on so every stream can be billed from the upstream's own count.
 */
export async function passthroughChat(input: ChatPassthroughInput): Promise<Outcome> {
  const { gateway, exchange, body } = input;
  const admission = exchange.admission!;
  const stream = body.stream === true;
  const changes: Record<string, unknown> = { model: admission.upstreamModel };
  if (stream) changes.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
  const credential = await gateway.credentialFor(admission.line);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'user-agent': 'Tollgate',
  };
  if (credential !== undefined) headers.authorization = `Bearer ${credential}`;
  return passthrough({
    gateway,
    exchange,
    res: input.res,
    signal: input.signal,
    path: '/chat/completions',
    headers,
    body: upstreamBody(input.rawBody, body, changes),
    stream,
    tap: () => new ChatStreamTap(body.stream_options?.include_usage === true),
    fromJson: (parsed) => {
      const p = parsed as { usage?: OpenAIUsage };
      return { usage: p.usage ? fromOpenAIUsage(p.usage) : undefined, produced: producedByCompletion(parsed as Parameters<typeof producedByCompletion>[0]) };
    },
    count: (produced) => countChatUsage(body, produced),
    encodeStreamError: input.encodeStreamError,
  });
}
