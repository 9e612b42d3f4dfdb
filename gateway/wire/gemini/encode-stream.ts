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
 *
 * Pushed to one canonical event at a time (core/codec.ts StreamWriter): the relay feeds it from its
 * own loop, with no async generator between the events and the socket; encodeStream and
 * encodeStreamAsJsonArray are the same writer in a loop.
 */
import type { StreamEvent } from '../../core/canonical.js';
import { writtenStream, type EncodeContext, type StreamWriter } from '../../core/codec.js';
import { GatewayError } from '../../core/errors.js';
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

/**
 * The stream's Gemini response objects (and at most one error body, last), written as they are known: with
 * `?alt=sse` one `data:` event each, without it the elements of one JSON array (`[`chunk`,`chunk…`]`).
 */
export class GeminiStreamWriter implements StreamWriter {
  done = false;
  private readonly calls = new Map<number, PendingCall>();
  private readonly thoughts = new Map<number, Thought>();
  /** Another family's reasoning waiting for the next function call. */
  private foreign: CarriedBlock[] = [];
  /** The last chunk with content, held back until the next one, or the end, is known. */
  private held: GeminiResponse | undefined;
  /** No element of the JSON array written yet (sse false). */
  private first = true;

  constructor(
    private readonly ctx: EncodeContext,
    private readonly sse: boolean,
  ) {}

  private chunk(parts: GeminiPart[]): GeminiResponse {
    return {
      candidates: [{ content: { role: 'model', parts }, index: 0 }],
      modelVersion: this.ctx.requestedModel,
      responseId: this.ctx.requestId,
    };
  }

  /** One response object as it goes out: its SSE event, or its place in the JSON array. */
  private text(r: GeminiResponse | GeminiErrorBody): string {
    if (this.sse) return `data: ${JSON.stringify(r)}\n\n`;
    const sep = this.first ? '[' : ',\r\n';
    this.first = false;
    return sep + JSON.stringify(r);
  }

  /** Holds `next` back and returns the text of the chunk it replaces, ready to go out. */
  private hold(next: GeminiResponse): string {
    const out = this.held ? this.text(this.held) : '';
    this.held = next;
    return out;
  }

  /** The held chunk, then `last`, and the stream is over (the JSON array closed). */
  private close(last: GeminiResponse | GeminiErrorBody): string {
    let out = this.held ? this.text(this.held) : '';
    this.held = undefined;
    out += this.text(last);
    if (!this.sse) out += ']';
    this.done = true;
    return out;
  }

  /** The text of one canonical event (undefined: none yet). */
  push(ev: StreamEvent): string | undefined {
    let out = '';
    switch (ev.type) {
      case 'block_start': {
        const b = ev.block;
        if (b.type === 'tool_call')
          this.calls.set(ev.index, {
            id: b.id,
            name: b.name,
            signature: b.signatureFamily === undefined || b.signatureFamily === 'gemini' ? b.signature : undefined,
            json: '',
          });
        else if (b.type === 'thinking')
          this.thoughts.set(ev.index, { text: '', ...(b.family ? { family: b.family } : {}) });
        else if (b.type === 'redacted_thinking' && b.family !== 'gemini')
          this.foreign.push({ type: 'redacted_thinking', data: b.data, ...(b.family ? { family: b.family } : {}) });
        break;
      }
      case 'text_delta':
        if (ev.text !== '') out = this.hold(this.chunk([{ text: ev.text }]));
        break;
      case 'thinking_delta': {
        const t = this.thoughts.get(ev.index);
        if (t) t.text += ev.text;
        if (ev.text !== '') out = this.hold(this.chunk([{ text: ev.text, thought: true }]));
        break;
      }
      case 'signature_delta': {
        const t = this.thoughts.get(ev.index);
        if (t) t.signature = ev.signature;
        break;
      }
      case 'tool_args_delta': {
        const call = this.calls.get(ev.index);
        if (call) call.json += ev.json;
        break;
      }
      case 'block_stop': {
        const t = this.thoughts.get(ev.index);
        if (t) {
          this.thoughts.delete(ev.index);
          if (t.family !== 'gemini')
            this.foreign.push({
              type: 'thinking',
              text: t.text,
              ...(t.signature ? { signature: t.signature } : {}),
              ...(t.family ? { family: t.family } : {}),
            });
          else if (t.signature)
            out = this.hold(this.chunk([{ text: '', thought: true, thoughtSignature: t.signature }]));
        }
        const call = this.calls.get(ev.index);
        if (!call) break;
        this.calls.delete(ev.index);
        const part = callPart(call.id, call.name, argsOf(call.json), call.signature);
        if (!part.thoughtSignature && this.foreign.length > 0) {
          part.thoughtSignature = bundle(this.foreign);
          this.foreign = [];
        }
        out += this.hold(this.chunk([part]));
        break;
      }
      case 'stop': {
        // The finish reason and the usage ride on the last chunk with content.
        const last = this.held ?? this.chunk([]);
        this.held = undefined;
        const candidate = last.candidates?.[0];
        if (candidate) candidate.finishReason = finishReason(ev.stopReason);
        out = this.close({ ...last, usageMetadata: toGeminiUsage(ev.usage) });
        break;
      }
      case 'error':
        out = this.close(errorBody(ev.error));
        break;
      default:
        // start: nothing to send.
        break;
    }
    return out === '' ? undefined : out;
  }

  /** The provider ended without `stop` or `error`: tell the client rather than fake a finish. */
  end(): string {
    return this.close(
      errorBody(
        new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', {
          code: 'upstream_stream_incomplete',
        }),
      ),
    );
  }
}

/** `?alt=sse`: one `data:` event per chunk. */
export function encodeStream(events: AsyncIterable<StreamEvent>, ctx: EncodeContext): AsyncGenerator<string> {
  return writtenStream(new GeminiStreamWriter(ctx, true), events);
}

/** No `alt=sse`: the same chunks as one JSON array (`[`chunk`,`chunk…`]`), sent as they come; Content-Type application/json. */
export function encodeStreamAsJsonArray(
  events: AsyncIterable<StreamEvent>,
  ctx: EncodeContext,
): AsyncGenerator<string> {
  return writtenStream(new GeminiStreamWriter(ctx, false), events);
}
