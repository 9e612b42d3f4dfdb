import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../core/errors.js';
import type { Exchange, Outcome } from '../../core/exchange.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { passthrough, type StreamTap } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import type { Gateway } from '../../services.js';
import { fromError } from './from-error.js';
import { fromGeminiUsage } from './usage.js';

export interface GeminiPassthroughInput {
  gateway: Gateway;
  exchange: Exchange;
  stream: boolean;
  /** The request body exactly as the client sent it. */
  rawBody: string;
  res: ServerResponse;
  signal: AbortSignal;
  count(produced: string): Promise<Usage>;
  encodeStreamError(err: GatewayError): string;
}

/**
 * Reads a Gemini SSE stream as it passes. Every chunk is a whole GenerateContentResponse; usage
 * may come in several chunks and only the last one counts (never add them up). A Gemini stream
 * has no terminator: it is complete once a chunk carried a finishReason.
 */
export class GeminiStreamTap implements StreamTap {
  private found: Usage | undefined;
  private finished = false;
  private failure: GatewayError | null = null;
  private readonly chunks: string[] = [];

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    assertJsonObjectShape(data);
    if (data.startsWith('{"error"')) {
      const e = (JSON.parse(data) as { error?: { message?: string } }).error;
      this.failure = new GatewayError('upstream_error', `Upstream error during the stream: ${e?.message ?? 'unknown'}`, { code: 'upstream_stream_error' });
      return true;
    }
    if (data.includes('"usageMetadata"')) this.found = fromGeminiUsage((JSON.parse(data) as { usageMetadata?: unknown }).usageMetadata);
    this.finished ||= data.includes('"finishReason"');
    this.chunks.push(data);
    return true;
  }

  usage(): Usage | undefined {
    return this.finished ? this.found : undefined;
  }
  complete(): boolean {
    return this.finished;
  }
  repairTail(): string | undefined {
    return undefined;
  }
  error(): GatewayError | null {
    return this.failure;
  }
  produced(): string {
    let out = '';
    for (const data of this.chunks) {
      try {
        const parsed = JSON.parse(data) as { candidates?: { content?: { parts?: { text?: string; functionCall?: unknown }[] } }[] };
        for (const p of parsed.candidates?.[0]?.content?.parts ?? []) out += p.text ?? (p.functionCall ? JSON.stringify(p.functionCall) : '');
      } catch {
        // A malformed chunk produced nothing countable.
      }
    }
    return out;
  }
}

/** Gemini in, `gemini` upstream out: the model goes in the path; the body passes as sent. */
export async function passthroughGemini(input: GeminiPassthroughInput): Promise<Outcome> {
  const { gateway, exchange, stream } = input;
  const admission = exchange.admission!;
  const credential = await gateway.credentialFor(admission.line);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'user-agent': 'Tollgate',
  };
  if (credential !== undefined) headers['x-goog-api-key'] = credential;
  const model = encodeURIComponent(admission.upstreamModel);
  return passthrough({
    gateway,
    exchange,
    res: input.res,
    signal: input.signal,
    path: stream ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : `/v1beta/models/${model}:generateContent`,
    headers,
    body: input.rawBody,
    stream,
    tap: () => new GeminiStreamTap(),
    fromJson: (parsed) => {
      const tap = new GeminiStreamTap();
      tap.onEvent({ data: JSON.stringify(parsed) });
      return { usage: (parsed as { usageMetadata?: unknown }).usageMetadata ? fromGeminiUsage((parsed as { usageMetadata: unknown }).usageMetadata) : undefined, produced: tap.produced() };
    },
    count: input.count,
    encodeStreamError: input.encodeStreamError,
    fromError,
  });
}
