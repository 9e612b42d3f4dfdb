import type { BlockStart, StopReason, StreamEvent } from '../../core/canonical.js';
import { GatewayError, upstreamMalformed } from '../../core/errors.js';
import { eventObject, type SseEvent } from '../../core/sse.js';
import { decodedStream, type StreamDecoder } from '../../core/stream-decoder.js';
import { promptTokens, type Usage } from '../../core/usage.js';
import { fromAnthropicStopReason } from './from-response.js';
import { fromAnthropicUsage, mergeAnthropicUsage } from './usage.js';
import { isObject, str } from '../../core/json.js';

/** A `content_block_start` block → what canonical knows at its start; undefined for blocks canonical cannot carry (server tools). */
function blockStart(b: Record<string, unknown>): BlockStart | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text' };
    case 'thinking':
      return { type: 'thinking', family: 'anthropic' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: str(b.data), family: 'anthropic' };
    case 'tool_use':
      return { type: 'tool_call', id: str(b.id), name: str(b.name) };
    default:
      return undefined;
  }
}

/** Content a start block already holds, put on `out`. Anthropic sends them empty, but compatible upstreams may not. */
function initialDeltas(index: number, b: Record<string, unknown>, out: StreamEvent[]): void {
  if (b.type === 'text' && str(b.text)) out.push({ type: 'text_delta', index, text: str(b.text) });
  if (b.type !== 'thinking') return;
  if (str(b.thinking)) out.push({ type: 'thinking_delta', index, text: str(b.thinking) });
  if (str(b.signature)) out.push({ type: 'signature_delta', index, signature: str(b.signature) });
}

function delta(index: number, d: Record<string, unknown>): StreamEvent | undefined {
  // Empty fragments carry nothing (Anthropic opens tool input with `partial_json: ""`).
  switch (d.type) {
    case 'text_delta':
      return str(d.text) ? { type: 'text_delta', index, text: str(d.text) } : undefined;
    case 'input_json_delta':
      return str(d.partial_json) ? { type: 'tool_args_delta', index, json: str(d.partial_json) } : undefined;
    case 'thinking_delta':
      return str(d.thinking) ? { type: 'thinking_delta', index, text: str(d.thinking) } : undefined;
    case 'signature_delta':
      return str(d.signature) ? { type: 'signature_delta', index, signature: str(d.signature) } : undefined;
    default:
      // citations_delta has no canonical stream form.
      return undefined;
  }
}

/** An `event: error` after the 200 (`{type:"error", error:{type, message}}`); overloaded_error is Anthropic's 529. */
function inBandError(raw: unknown): GatewayError {
  const err = isObject(raw) ? raw : {};
  const type = str(err.type) || 'api_error';
  const detail = str(err.message) ? `: ${str(err.message).slice(0, 500)}` : '';
  if (type === 'overloaded_error')
    return new GatewayError('upstream_unavailable', `Upstream unavailable (${type})${detail}`, {
      code: 'upstream_unavailable',
    });
  return new GatewayError('upstream_error', `Upstream error (${type})${detail}`, { code: 'upstream_error' });
}

interface OpenBlock {
  index: number;
  /** A tool_use start block's non-empty `input`, sent only if no input_json_delta follows. */
  startInput?: string;
  sawArgs: boolean;
}

const NONE: readonly StreamEvent[] = Object.freeze([]);

/**
 * Messages SSE → canonical stream events, one upstream event at a time (core/stream-decoder.ts). Usage:
 * `message_start` carries the prompt side, and `message_delta` carries cumulative totals (the last one wins,
 * nothing is added up). Blocks that canonical cannot carry are skipped and the rest renumbered, so indexes stay
 * contiguous.
 */
export class AnthropicStreamDecoder implements StreamDecoder {
  done = false;
  private usage: Usage | undefined;
  private stopReason: StopReason = 'end_turn';
  private stopSequence: string | undefined;
  private readonly open = new Map<number, OpenBlock>();
  private next = 0;

  constructor(private readonly promptUsage: Usage) {}

  push(e: SseEvent): readonly StreamEvent[] {
    if (e.event === 'ping') return NONE;
    const data = eventObject(e);
    const type = typeof data.type === 'string' ? data.type : e.event;
    if (type === 'ping') return NONE;
    if (type === 'error') {
      this.done = true;
      return [{ type: 'error', error: inBandError(data.error) }];
    }
    if (type === 'message_start') {
      const message = isObject(data.message) ? data.message : {};
      const usage = (this.usage = fromAnthropicUsage(message.usage));
      // An upstream that counts the prompt only at the end sends zeros here; Claude Code shows this figure, so use the estimate.
      return [
        {
          type: 'start',
          id: str(message.id),
          model: str(message.model),
          usage: promptTokens(usage) > 0 ? usage : { ...this.promptUsage },
        },
      ];
    }
    const usage = this.usage;
    if (usage === undefined) {
      if (type === 'message_delta' || type === 'message_stop' || type?.startsWith('content_block'))
        throw upstreamMalformed(`the upstream sent ${type} before message_start.`);
      return NONE;
    }
    if (type === 'message_stop') {
      this.done = true;
      // An upstream that reports no prompt figures at all is billed on the estimate.
      const reported = promptTokens(usage) > 0;
      const final = reported
        ? usage
        : { ...this.promptUsage, outputTokens: usage.outputTokens, reasoningTokens: usage.reasoningTokens };
      const stop: Extract<StreamEvent, { type: 'stop' }> = { type: 'stop', stopReason: this.stopReason, usage: final };
      if (this.stopSequence !== undefined) stop.stopSequence = this.stopSequence;
      if (!reported) stop.usageEstimated = true;
      return [stop];
    }
    const at = typeof data.index === 'number' ? data.index : -1;
    if (type === 'content_block_start') {
      const b = isObject(data.content_block) ? data.content_block : {};
      const start = blockStart(b);
      if (!start) return NONE;
      const block: OpenBlock = { index: this.next++, sawArgs: false };
      if (b.type === 'tool_use' && isObject(b.input) && Object.keys(b.input).length > 0)
        block.startInput = JSON.stringify(b.input);
      this.open.set(at, block);
      const out: StreamEvent[] = [{ type: 'block_start', index: block.index, block: start }];
      // Usually none: Anthropic opens every block empty.
      initialDeltas(block.index, b, out);
      return out;
    }
    if (type === 'content_block_delta') {
      const block = this.open.get(at);
      const ev = block && isObject(data.delta) ? delta(block.index, data.delta) : undefined;
      if (!block || !ev) return NONE;
      if (ev.type === 'tool_args_delta') block.sawArgs = true;
      return [ev];
    }
    if (type === 'content_block_stop') {
      const block = this.open.get(at);
      if (!block) return NONE;
      this.open.delete(at);
      const stop: StreamEvent = { type: 'block_stop', index: block.index };
      if (block.startInput !== undefined && !block.sawArgs)
        return [{ type: 'tool_args_delta', index: block.index, json: block.startInput }, stop];
      return [stop];
    }
    if (type === 'message_delta') {
      const d = isObject(data.delta) ? data.delta : {};
      if (d.stop_reason != null) this.stopReason = fromAnthropicStopReason(d.stop_reason);
      if (typeof d.stop_sequence === 'string') this.stopSequence = d.stop_sequence;
      this.usage = mergeAnthropicUsage(usage, data.usage);
    }
    return NONE;
  }

  end(): readonly StreamEvent[] {
    throw new GatewayError('upstream_error', 'Upstream error: the stream ended before message_stop.', {
      code: 'upstream_stream_incomplete',
    });
  }
}

/** Messages SSE → canonical stream events: AnthropicStreamDecoder over each event. */
export function fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncGenerator<StreamEvent> {
  return decodedStream(new AnthropicStreamDecoder(promptUsage), events);
}
