import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape, isObject, type JsonObject } from '../../core/json.js';
import { BaseStreamTap, type Passthrough } from '../../core/passthrough.js';
import type { SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import { fromGeminiUsage } from './usage.js';

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
  /** The last interim figure's prompt side: the upstream's own count of the prompt. */
  override promptUsage(): Usage | undefined {
    return this.found;
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

/**
 * Gemini in, `gemini` upstream out: the model goes in the path; the body passes as sent. `stream`
 * is the client's `:streamGenerateContent` (Gemini says it in the method, not the body). An output
 * limit Tollgate sets goes in generationConfig.maxOutputTokens.
 */
export function geminiPassthrough(request: JsonObject, rawBody: string, stream: boolean): Passthrough {
  return {
    request(upstreamModel, limit) {
      const model = encodeURIComponent(upstreamModel);
      const config = isObject(request.generationConfig) ? request.generationConfig : {};
      const body = limit ? JSON.stringify({ ...request, generationConfig: { ...config, maxOutputTokens: limit.tokens } }) : rawBody;
      return { path: stream ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : `/v1beta/models/${model}:generateContent`, headers: {}, body };
    },
    tap: () => new GeminiStreamTap(),
    readAnswer(parsed) {
      const tap = new GeminiStreamTap();
      tap.onEvent({ data: JSON.stringify(parsed) });
      const usage = (parsed as { usageMetadata?: unknown }).usageMetadata;
      return { usage: usage ? fromGeminiUsage(usage) : undefined, produced: tap.produced() };
    },
  };
}
