import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape, isObject } from '../../core/json.js';
import { BaseStreamTap, upstreamBody, type Passthrough } from '../../core/passthrough.js';
import { isMarked } from '../../core/reasoning.js';
import { bind, isBound, lineTag, otherLineNote, readBound } from '../../core/signatures.js';
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
 * The contents as line `lineId` of Gemini can verify them. Thought signatures Tollgate gave the
 * client for another family's reasoning (core/reasoning.ts), or bound to another line
 * (core/signatures.ts), would be refused as corrupted: on a thought part the signature is
 * removed; on a function call it becomes the placeholder Gemini 3 accepts for a call it did not
 * sign, which also goes on the first call of a model turn that has no signature (a call another
 * family made), as to-request.ts does. Signatures bound to this line are unbound. Undefined when
 * nothing changes.
 */
function signaturesForLine(
  contents: unknown,
  lineId: string | undefined,
): { contents: unknown[]; foreign: number; otherLine: number; unbound: number } | undefined {
  if (!Array.isArray(contents)) return undefined;
  const tag = lineId === undefined ? undefined : lineTag(lineId);
  const count = { foreign: 0, otherLine: 0, unbound: 0 };
  const clean = (p: unknown, firstCall: boolean): unknown => {
    if (!isObject(p)) return p;
    const { thoughtSignature, ...rest } = p;
    const call = rest.functionCall !== undefined;
    if (tag !== undefined && isBound(thoughtSignature)) {
      const b = readBound(thoughtSignature);
      if (b?.tag === tag) {
        count.unbound++;
        return { ...p, thoughtSignature: b.value };
      }
      count.otherLine++;
      return call ? { ...rest, thoughtSignature: SKIP_SIGNATURE } : rest;
    }
    if (isMarked(thoughtSignature) || (call && firstCall && thoughtSignature === undefined)) {
      count.foreign++;
      return call ? { ...rest, thoughtSignature: SKIP_SIGNATURE } : rest;
    }
    return p;
  };
  const out = contents.map((c: unknown) => {
    if (!isObject(c) || c.role !== 'model' || !Array.isArray(c.parts)) return c;
    const first = c.parts.findIndex((p: unknown) => isObject(p) && p.functionCall !== undefined);
    return { ...c, parts: c.parts.map((p: unknown, i) => clean(p, i === first)) };
  });
  return count.foreign + count.otherLine + count.unbound > 0 ? { contents: out, ...count } : undefined;
}

/** Every thoughtSignature of a GenerateContentResponse bound to the line; true when one was. */
function bindParts(response: unknown, lineId: string): boolean {
  let changed = false;
  const candidates = isObject(response) && Array.isArray(response.candidates) ? response.candidates : [];
  for (const c of candidates) {
    const parts = isObject(c) && isObject(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
    for (const p of parts) {
      if (!isObject(p) || typeof p.thoughtSignature !== 'string' || p.thoughtSignature === '') continue;
      p.thoughtSignature = bind(p.thoughtSignature, lineId);
      changed = true;
    }
  }
  return changed;
}

/** Binding a Gemini answer's thought signatures (core/signatures.ts); only chunks that hold one are parsed. */
export const geminiSignatures = {
  answer: bindParts,
  event(data: string, lineId: string): string {
    if (!data.includes('"thoughtSignature"')) return data;
    const chunk: unknown = JSON.parse(data);
    return bindParts(chunk, lineId) ? JSON.stringify(chunk) : data;
  },
};

/**
 * Gemini in, `gemini` upstream out: the model goes in the path; the body passes as sent, less the
 * signatures only another family could verify. `stream` is the client's `:streamGenerateContent`
 * (Gemini says it in the method, not the body). An output limit Tollgate sets goes in
 * generationConfig.maxOutputTokens.
 */
export function geminiPassthrough(body: Record<string, unknown>, rawBody: string, stream: boolean): Passthrough {
  return {
    request(upstreamModel, _quirks, outputLimit, line) {
      const model = encodeURIComponent(upstreamModel);
      const config = isObject(body.generationConfig) ? body.generationConfig : {};
      const signed = signaturesForLine(body.contents, line?.id);
      const notes: string[] = [];
      if (signed?.foreign)
        notes.push(
          `gemini: "${SKIP_SIGNATURE}" put on or in place of ${signed.foreign} thought signature(s) Gemini did not make (another family's reasoning or call)`,
        );
      if (signed?.otherLine)
        notes.push(otherLineNote('gemini', `${signed.otherLine} thought signature(s) (calls get "${SKIP_SIGNATURE}")`));
      const changes = {
        ...(signed ? { contents: signed.contents } : {}),
        ...(outputLimit === undefined ? {} : { generationConfig: { ...config, maxOutputTokens: outputLimit } }),
      };
      const unbound =
        signed && line && signed.foreign + signed.otherLine === 0 ? { field: 'contents', line: line.id } : undefined;
      const sent = Object.keys(changes).length > 0 ? upstreamBody(rawBody, body, changes, unbound) : rawBody;
      const out = {
        path: stream
          ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
          : `/v1beta/models/${model}:generateContent`,
        headers: {},
        body: sent,
      };
      return notes.length > 0 ? { ...out, notes } : out;
    },
    tap: () => new GeminiStreamTap(),
    signatures: geminiSignatures,
    modelField: { answer: ['modelVersion'], event: ['modelVersion'] },
    readAnswer(parsed) {
      const tap = new GeminiStreamTap();
      tap.onEvent({ data: JSON.stringify(parsed) });
      const usage = (parsed as { usageMetadata?: unknown }).usageMetadata;
      return { usage: usage ? fromGeminiUsage(usage) : undefined, produced: tap.produced() };
    },
  };
}
