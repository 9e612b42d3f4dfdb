import type { Outcome } from '../../core/exchange.js';
import { assertJsonObjectShape } from '../../core/json.js';
import { BaseStreamTap, baseHeaders, passthrough, upstreamStreamError, type PassthroughInput } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import { fromError } from './from-error.js';
import { fromGeminiUsage } from './usage.js';

export interface GeminiPassthroughInput extends PassthroughInput {
  /** The client called `:streamGenerateContent` (Gemini says it in the method, not the body). */
  stream: boolean;
}

/**
 * Reads a Gemini SSE stream as it passes. Every chunk is a whole GenerateContentResponse; usage
 * may come in several chunks and only the last one counts (never add them up). A Gemini stream
 * has no terminator: it is complete once a chunk carried a finishReason.
 */
export class GeminiStreamTap extends BaseStreamTap {
  private readonly chunks: string[] = [];

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    assertJsonObjectShape(data);
    if (data.startsWith('{"error"')) {
      const e = (JSON.parse(data) as { error?: { message?: string } }).error;
      this.failure = upstreamStreamError(e?.message);
      return true;
    }
    if (data.includes('"usageMetadata"')) this.found = fromGeminiUsage((JSON.parse(data) as { usageMetadata?: unknown }).usageMetadata);
    this.done ||= data.includes('"finishReason"');
    this.chunks.push(data);
    return true;
  }

  /** Interim chunks carry prompt-only usage; only the finished stream's last figure is final. */
  override usage(): Usage | undefined {
    return this.done ? this.found : undefined;
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
  const headers = baseHeaders(stream);
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
