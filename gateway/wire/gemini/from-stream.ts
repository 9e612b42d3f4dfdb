/**
 * Gemini `streamGenerateContent?alt=sse` → canonical stream events. Each `data:` chunk is a whole
 * GenerateContentResponse holding the *next* parts (docs/protocols.md §4):
 * - Text parts stream as text deltas; thought parts as a thinking block (with a signature_delta
 *   for their thoughtSignature), closed when the answer text starts.
 * - Function calls arrive whole, so each is one complete block: block_start, a single
 *   tool_args_delta with the whole JSON, block_stop. Ids are made up as in fromResponse.
 * - Usage: interim chunks carry prompt-only usageMetadata, so the LAST one seen is the total;
 *   nothing is added up. The first chunk's prompt count (when it has one) is the `start` usage.
 * - The chunk with finishReason is usually the last; `stop` goes out when the stream ends. A
 *   stream that ends without any finishReason was cut off. Inline media parts (image output) have
 *   no canonical stream form and are skipped.
 */
import type { StreamEvent } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { isObject, str } from '../../core/json.js';
import { eventObject, type SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import { badCallError, idSeed, madeUpCallId, stopReasonOf, upstreamReported } from './from-response.js';
import { fromGeminiUsage, hasPromptCount } from './usage.js';

/** Keeps block indexes contiguous with one block open at a time. */
class Blocks {
  private next = 0;
  private open: { kind: 'text' | 'thinking'; index: number } | null = null;
  calls = 0;

  constructor(private readonly seed: () => string) {}

  text(kind: 'text' | 'thinking', text: string, signature: string): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.open?.kind !== kind) {
      out.push(...this.close());
      this.open = { kind, index: this.next++ };
      out.push({
        type: 'block_start',
        index: this.open.index,
        block: kind === 'thinking' ? { type: 'thinking', family: 'gemini' } : { type: 'text' },
      });
    }
    const index = this.open.index;
    if (text !== '')
      out.push(kind === 'text' ? { type: 'text_delta', index, text } : { type: 'thinking_delta', index, text });
    if (signature !== '' && kind === 'thinking') out.push({ type: 'signature_delta', index, signature });
    return out;
  }

  call(fc: Record<string, unknown>, signature: string): StreamEvent[] {
    const out = this.close();
    const index = this.next++;
    const id = str(fc.id) || madeUpCallId(this.seed(), this.calls);
    this.calls++;
    out.push({
      type: 'block_start',
      index,
      block: signature
        ? { type: 'tool_call', id, name: str(fc.name), signature, signatureFamily: 'gemini' }
        : { type: 'tool_call', id, name: str(fc.name) },
    });
    out.push({ type: 'tool_args_delta', index, json: JSON.stringify(isObject(fc.args) ? fc.args : {}) });
    out.push({ type: 'block_stop', index });
    return out;
  }

  close(): StreamEvent[] {
    if (!this.open) return [];
    const index = this.open.index;
    this.open = null;
    return [{ type: 'block_stop', index }];
  }
}

function partEvents(p: unknown, blocks: Blocks): StreamEvent[] {
  if (!isObject(p)) return [];
  const signature = str(p.thoughtSignature);
  if (isObject(p.functionCall)) return blocks.call(p.functionCall, signature);
  if (typeof p.text !== 'string') return [];
  if (p.thought === true) return blocks.text('thinking', p.text, signature);
  // An empty text part (Gemini 3 sends one to carry a signature, which only calls need back) carries nothing.
  return p.text === '' ? [] : blocks.text('text', p.text, '');
}

export async function* fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncGenerator<StreamEvent> {
  let started = false;
  let finish: string | undefined;
  let blocked = false;
  let usage: unknown;
  let seed: string | undefined;
  let firstData = '';
  const blocks = new Blocks(() => (seed ??= idSeed(undefined, firstData)));
  for await (const ev of events) {
    if (ev.data.trim() === '') continue;
    const chunk = eventObject(ev);
    if (chunk.error !== undefined && chunk.error !== null) {
      yield { type: 'error', error: upstreamReported(chunk.error, true) };
      return;
    }
    if (!started) {
      started = true;
      firstData = ev.data;
      if (str(chunk.responseId)) seed = idSeed(chunk.responseId, '');
      const prompt = hasPromptCount(chunk.usageMetadata)
        ? { ...fromGeminiUsage(chunk.usageMetadata), outputTokens: 0, reasoningTokens: 0 }
        : promptUsage;
      yield { type: 'start', id: str(chunk.responseId), model: str(chunk.modelVersion), usage: prompt };
    }
    if (isObject(chunk.usageMetadata)) usage = chunk.usageMetadata;
    if (isObject(chunk.promptFeedback) && typeof chunk.promptFeedback.blockReason === 'string') blocked = true;
    const candidates: unknown[] = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    const c = candidates.find((x) => isObject(x) && (x.index ?? 0) === 0);
    if (!isObject(c)) continue;
    const parts: unknown[] = isObject(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
    for (const p of parts) yield* partEvents(p, blocks);
    if (typeof c.finishReason === 'string' && c.finishReason !== '') {
      finish = c.finishReason;
      const bad = badCallError(finish, c.finishMessage);
      if (bad) {
        yield* blocks.close();
        yield { type: 'error', error: bad };
        return;
      }
      yield* blocks.close();
    }
  }
  if (finish === undefined && !blocked) {
    throw new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', {
      code: 'upstream_stream_incomplete',
    });
  }
  yield* blocks.close();
  const stopReason = blocked ? 'refusal' : stopReasonOf(finish ?? '', blocks.calls > 0);
  yield isObject(usage)
    ? { type: 'stop', stopReason, usage: fromGeminiUsage(usage) }
    : { type: 'stop', stopReason, usage: promptUsage, usageEstimated: true };
}
