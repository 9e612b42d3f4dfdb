import type { BlockStart, StreamEvent } from '../../core/canonical.js';
import { writtenStream, type EncodeContext, type StreamWriter } from '../../core/codec.js';
import type { GatewayError } from '../../core/errors.js';
import { formatSse } from '../../core/sse.js';
import { emptyUsage, type Usage } from '../../core/usage.js';
import { anthropicToolId } from './to-request.js';
import { callCarrier, messageId, thinkingSignature, toMessagesStopReason, toMessagesUsage } from './encode.js';
import { encodeError } from './errors.js';

function sse(name: string, data: Record<string, unknown>): string {
  return formatSse({ event: name, data: JSON.stringify({ type: name, ...data }) });
}

/** A failure after the 200: `event: error` with the Anthropic error body; the SDKs raise it as their typed error. */
export function encodeStreamError(err: GatewayError): string {
  return formatSse({ event: 'error', data: JSON.stringify(encodeError(err).body) });
}

function messageStart(id: string, usage: Usage, ctx: EncodeContext): string {
  // Claude Code reads the prompt size from here, so this is the real or estimated figure the provider gave.
  const message = {
    id: messageId(id, ctx),
    type: 'message',
    role: 'assistant',
    model: ctx.requestedModel,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: toMessagesUsage(usage),
  };
  return sse('message_start', { message });
}

/** The empty block a `content_block_start` announces; deltas fill it in. */
function startBlock(b: BlockStart): Record<string, unknown> {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    case 'tool_call':
      // Arguments follow as input_json_delta; the block opens with an empty object.
      return { type: 'tool_use', id: anthropicToolId(b.id), name: b.name, input: {} };
  }
}

/** A thinking block being streamed whose signature is not Anthropic's: it goes out marked, at its stop. */
interface ForeignThinking {
  family: Extract<BlockStart, { type: 'thinking' }>['family'];
  signature?: string;
}

/**
 * Canonical stream → Messages SSE: message_start, content blocks, message_delta (cumulative usage
 * with the input side repeated), message_stop. No `[DONE]`. An `error` event ends the stream with
 * `event: error` and no message_stop. Errors thrown by the events' source propagate to the caller,
 * which turns them into an error event (relay/canonical-tap.ts).
 *
 * Signatures as in encode.ts: Anthropic's pass as signature_delta events; another family's
 * thinking gets one signature_delta with Tollgate's mark just before its block stops; a signed
 * tool call is preceded by its carrier block, so later indexes move up by one.
 *
 * Pushed to one canonical event at a time (core/codec.ts StreamWriter): the relay feeds it from its
 * own loop, with no async generator between the events and the socket; encodeStream is the same
 * writer in a loop.
 */
export class AnthropicStreamWriter implements StreamWriter {
  done = false;
  private started = false;
  private shift = 0;
  private readonly foreign = new Map<number, ForeignThinking>();

  constructor(private readonly ctx: EncodeContext) {}

  /** The SSE text of one canonical event, all of its Messages events in one chunk. */
  push(ev: StreamEvent): string | undefined {
    let out = '';
    if (!this.started && ev.type !== 'start' && ev.type !== 'error') {
      // A provider that did not announce the message: open it anyway, clients need message_start first.
      out += messageStart('', emptyUsage(), this.ctx);
    }
    this.started = true;
    switch (ev.type) {
      case 'start':
        out += messageStart(ev.id, ev.usage, this.ctx);
        break;
      case 'block_start': {
        const b = ev.block;
        if (b.type === 'thinking' && b.family !== 'anthropic') this.foreign.set(ev.index, { family: b.family });
        if (b.type === 'tool_call' && b.signature) {
          const carrier = callCarrier(b.id, b.signature, b.signatureFamily);
          const index = ev.index + this.shift++;
          out += sse('content_block_start', {
            index,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          });
          out += sse('content_block_delta', {
            index,
            delta: { type: 'signature_delta', signature: carrier.signature },
          });
          out += sse('content_block_stop', { index });
        }
        out += sse('content_block_start', { index: ev.index + this.shift, content_block: startBlock(b) });
        break;
      }
      case 'text_delta':
        out += sse('content_block_delta', {
          index: ev.index + this.shift,
          delta: { type: 'text_delta', text: ev.text },
        });
        break;
      case 'tool_args_delta':
        out += sse('content_block_delta', {
          index: ev.index + this.shift,
          delta: { type: 'input_json_delta', partial_json: ev.json },
        });
        break;
      case 'thinking_delta':
        out += sse('content_block_delta', {
          index: ev.index + this.shift,
          delta: { type: 'thinking_delta', thinking: ev.text },
        });
        break;
      case 'signature_delta': {
        const f = this.foreign.get(ev.index);
        if (f) f.signature = ev.signature;
        else
          out += sse('content_block_delta', {
            index: ev.index + this.shift,
            delta: { type: 'signature_delta', signature: ev.signature },
          });
        break;
      }
      case 'block_stop': {
        const f = this.foreign.get(ev.index);
        if (f) {
          this.foreign.delete(ev.index);
          out += sse('content_block_delta', {
            index: ev.index + this.shift,
            delta: { type: 'signature_delta', signature: thinkingSignature(f) },
          });
        }
        out += sse('content_block_stop', { index: ev.index + this.shift });
        break;
      }
      case 'stop':
        out += sse('message_delta', {
          delta: { stop_reason: toMessagesStopReason(ev.stopReason), stop_sequence: ev.stopSequence ?? null },
          usage: toMessagesUsage(ev.usage),
        });
        out += sse('message_stop', {});
        this.done = true;
        break;
      case 'error':
        out += encodeStreamError(ev.error);
        this.done = true;
        break;
    }
    return out === '' ? undefined : out;
  }

  /**
   * The events ended without `stop` or `error`: nothing more is written. The caller reads the
   * stream's end (relay/translate.ts), as it always has for this format.
   */
  end(): string | undefined {
    this.done = true;
    return undefined;
  }
}

export function encodeStream(events: AsyncIterable<StreamEvent>, ctx: EncodeContext): AsyncGenerator<string> {
  return writtenStream(new AnthropicStreamWriter(ctx), events);
}
