/**
 * Canonical stream → Gemini `streamGenerateContent` output: a sequence of whole
 * GenerateContentResponse chunks, each holding the next parts (docs/protocols.md §4). With `?alt=sse`
 * each is a bare `data:` event, with no event names and no [DONE]; without it the same chunks form
 * one JSON array, written incrementally.
 *
 * - Text and thinking deltas go out as they come, one part per chunk (`thought:true` for thinking).
 * - Tool calls are buffered until their block stops and sent whole, one functionCall part: Gemini
 *   never splits a call, and its clients do not join fragments.
 * - The finishReason and the final usageMetadata ride on the last chunk that has content: the
 *   @google/genai chat helper (and Gemini CLI's own check) treat a chunk with empty `parts` as
 *   invalid and then drop the whole answer from their history. So one chunk is always held back
 *   until the next one, or the end, is known.
 * - Signatures as in encode.ts: Gemini's own on a thought goes out on an empty thought part (as
 *   Gemini 3 sends one), and on a call with the call. Another family's thinking streams as thought
 *   text to read, and is bundled, signatures and all, into the `thoughtSignature` of the next
 *   function call, under Tollgate's mark.
 * - An `error` event ends the stream with a final `{error:{code, message, status}}` chunk, which
 *   @google/genai raises as an ApiError.
 */
import type { StreamEvent } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { GatewayError } from '../../core/errors.js';
import { formatSse } from '../../core/sse.js';
import type { ProviderFamily } from '../../core/canonical.js';
import type { CarriedBlock } from '../../core/reasoning.js';
import type { GeminiErrorBody, GeminiPart, GeminiResponse } from './types.js';
import { argsOf, bundle, callPart, finishReason, toGeminiUsage } from './encode.js';
import { errorBody } from './errors.js';

interface PendingCall {
  id: string;
  name: string;
  signature: string | undefined;
  json: string;
}

/** A thinking block being streamed: its family, the text so far and its signature. */
interface Thought {
  family?: ProviderFamily;
  text: string;
  signature?: string;
}

/** The stream as Gemini response objects (and at most one error body, last). */
export async function* encodeResponses(
  events: AsyncIterable<StreamEvent>,
  ctx: EncodeContext,
): AsyncGenerator<GeminiResponse | GeminiErrorBody> {
  const chunk = (parts: GeminiPart[]): GeminiResponse => ({
    candidates: [{ content: { role: 'model', parts }, index: 0 }],
    modelVersion: ctx.requestedModel,
    responseId: ctx.requestId,
  });
  const calls = new Map<number, PendingCall>();
  const thoughts = new Map<number, Thought>();
  /** Another family's reasoning waiting for the next function call. */
  let foreign: CarriedBlock[] = [];
  let held: GeminiResponse | undefined;
  /** Holds `next` back and returns the chunk it replaces, ready to go out. */
  const hold = (next: GeminiResponse): GeminiResponse[] => {
    const out = held ? [held] : [];
    held = next;
    return out;
  };
  const flush = (): GeminiResponse[] => {
    const out = held ? [held] : [];
    held = undefined;
    return out;
  };

  for await (const ev of events) {
    switch (ev.type) {
      case 'block_start': {
        const b = ev.block;
        if (b.type === 'tool_call')
          calls.set(ev.index, {
            id: b.id,
            name: b.name,
            signature: b.signatureFamily === undefined || b.signatureFamily === 'gemini' ? b.signature : undefined,
            json: '',
          });
        else if (b.type === 'thinking') thoughts.set(ev.index, { text: '', ...(b.family ? { family: b.family } : {}) });
        else if (b.type === 'redacted_thinking' && b.family !== 'gemini')
          foreign.push({ type: 'redacted_thinking', data: b.data, ...(b.family ? { family: b.family } : {}) });
        break;
      }
      case 'text_delta':
        if (ev.text !== '') yield* hold(chunk([{ text: ev.text }]));
        break;
      case 'thinking_delta': {
        const t = thoughts.get(ev.index);
        if (t) t.text += ev.text;
        if (ev.text !== '') yield* hold(chunk([{ text: ev.text, thought: true }]));
        break;
      }
      case 'signature_delta': {
        const t = thoughts.get(ev.index);
        if (t) t.signature = ev.signature;
        break;
      }
      case 'tool_args_delta': {
        const call = calls.get(ev.index);
        if (call) call.json += ev.json;
        break;
      }
      case 'block_stop': {
        const t = thoughts.get(ev.index);
        if (t) {
          thoughts.delete(ev.index);
          if (t.family !== 'gemini')
            foreign.push({
              type: 'thinking',
              text: t.text,
              ...(t.signature ? { signature: t.signature } : {}),
              ...(t.family ? { family: t.family } : {}),
            });
          else if (t.signature) yield* hold(chunk([{ text: '', thought: true, thoughtSignature: t.signature }]));
        }
        const call = calls.get(ev.index);
        if (!call) break;
        calls.delete(ev.index);
        const part = callPart(call.id, call.name, argsOf(call.json), call.signature);
        if (!part.thoughtSignature && foreign.length > 0) {
          part.thoughtSignature = bundle(foreign);
          foreign = [];
        }
        yield* hold(chunk([part]));
        break;
      }
      case 'stop': {
        const last = held ?? chunk([]);
        held = undefined;
        const candidate = last.candidates?.[0];
        if (candidate) candidate.finishReason = finishReason(ev.stopReason);
        yield { ...last, usageMetadata: toGeminiUsage(ev.usage) };
        return;
      }
      case 'error':
        yield* flush();
        yield errorBody(ev.error);
        return;
      default:
        // start: nothing to send.
        break;
    }
  }
  // The provider ended without `stop` or `error`: tell the client rather than fake a finish.
  yield* flush();
  yield errorBody(
    new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', {
      code: 'upstream_stream_incomplete',
    }),
  );
}

/** `?alt=sse`: one `data:` event per chunk. */
export async function* encodeStream(events: AsyncIterable<StreamEvent>, ctx: EncodeContext): AsyncGenerator<string> {
  for await (const r of encodeResponses(events, ctx)) yield formatSse({ data: JSON.stringify(r) });
}

/** No `alt=sse`: the same chunks as one JSON array (`[`chunk`,`chunk…`]`), sent as they come; Content-Type application/json. */
export async function* encodeStreamAsJsonArray(
  events: AsyncIterable<StreamEvent>,
  ctx: EncodeContext,
): AsyncGenerator<string> {
  let first = true;
  for await (const r of encodeResponses(events, ctx)) {
    yield `${first ? '[' : ',\r\n'}${JSON.stringify(r)}`;
    first = false;
  }
  yield first ? '[]' : ']';
}
