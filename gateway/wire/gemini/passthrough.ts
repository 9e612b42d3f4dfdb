import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape, isObject } from '../../core/json.js';
import { BaseStreamTap, upstreamBody, type Passthrough } from '../../core/passthrough.js';
import { isMarked } from '../../core/reasoning.js';
import type { SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import { SKIP_SIGNATURE } from './types.js';
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
    if (data.includes('"usageMetadata"'))
      this.found = fromGeminiUsage((JSON.parse(data) as { usageMetadata?: unknown }).usageMetadata);
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
        const parsed = JSON.parse(data) as {
          candidates?: { content?: { parts?: { text?: string; functionCall?: unknown }[] } }[];
        };
        for (const p of parsed.candidates?.[0]?.content?.parts ?? [])
          out += p.text ?? (p.functionCall ? JSON.stringify(p.functionCall) : '');
      } catch {
        // A malformed chunk produced nothing countable.
      }
    }
    return out;
  }
}

/**
 * The contents as Gemini can verify them. Thought signatures Tollgate gave the client for another
 * family's reasoning (core/reasoning.ts) would be refused as corrupted: on a thought part the
 * signature is removed; on a function call it becomes the placeholder Gemini 3 accepts for a call
 * it did not sign, which also goes on the first call of a model turn that has no signature (a call
 * another family made), as to-request.ts does. Undefined when nothing changes.
 */
function withForeignSignaturesReplaced(contents: unknown): { contents: unknown[]; replaced: number } | undefined {
  if (!Array.isArray(contents)) return undefined;
  let replaced = 0;
  const clean = (p: unknown, firstCall: boolean): unknown => {
    if (!isObject(p)) return p;
    const { thoughtSignature, ...rest } = p;
    const call = rest.functionCall !== undefined;
    if (isMarked(thoughtSignature) || (call && firstCall && thoughtSignature === undefined)) {
      replaced++;
      return call ? { ...rest, thoughtSignature: SKIP_SIGNATURE } : rest;
    }
    return p;
  };
  const out = contents.map((c: unknown) => {
    if (!isObject(c) || c.role !== 'model' || !Array.isArray(c.parts)) return c;
    const first = c.parts.findIndex((p: unknown) => isObject(p) && p.functionCall !== undefined);
    return { ...c, parts: c.parts.map((p: unknown, i) => clean(p, i === first)) };
  });
  return replaced > 0 ? { contents: out, replaced } : undefined;
}

/**
 * Gemini in, `gemini` upstream out: the model goes in the path; the body passes as sent, less the
 * signatures only another family could verify. `stream` is the client's `:streamGenerateContent`
 * (Gemini says it in the method, not the body). An output limit Tollgate sets goes in
 * generationConfig.maxOutputTokens.
 */
export function geminiPassthrough(body: Record<string, unknown>, rawBody: string, stream: boolean): Passthrough {
  const foreign = withForeignSignaturesReplaced(body.contents);
  const notes = foreign
    ? [
        `gemini: "${SKIP_SIGNATURE}" put on or in place of ${foreign.replaced} thought signature(s) Gemini did not make (another family's reasoning or call)`,
      ]
    : undefined;
  return {
    request(upstreamModel, _quirks, outputLimit) {
      const model = encodeURIComponent(upstreamModel);
      const config = isObject(body.generationConfig) ? body.generationConfig : {};
      const changes = {
        ...(foreign ? { contents: foreign.contents } : {}),
        ...(outputLimit === undefined ? {} : { generationConfig: { ...config, maxOutputTokens: outputLimit } }),
      };
      const sent = Object.keys(changes).length > 0 ? upstreamBody(rawBody, body, changes) : rawBody;
      const out = {
        path: stream
          ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
          : `/v1beta/models/${model}:generateContent`,
        headers: {},
        body: sent,
      };
      return notes ? { ...out, notes } : out;
    },
    tap: () => new GeminiStreamTap(),
    modelField: { answer: ['modelVersion'], event: ['modelVersion'] },
    readAnswer(parsed) {
      const tap = new GeminiStreamTap();
      tap.onEvent({ data: JSON.stringify(parsed) });
      const usage = (parsed as { usageMetadata?: unknown }).usageMetadata;
      return { usage: usage ? fromGeminiUsage(usage) : undefined, produced: tap.produced() };
    },
  };
}
