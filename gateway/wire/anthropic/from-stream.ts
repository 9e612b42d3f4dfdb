import type { BlockStart, StopReason, StreamEvent } from '../../core/canonical.js';
import { GatewayError, upstreamMalformed } from '../../core/errors.js';
import { eventObject, type SseEvent } from '../../core/sse.js';
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

/** Content a start block already holds. Anthropic sends them empty, but compatible upstreams may not. */
function initialDeltas(index: number, b: Record<string, unknown>): StreamEvent[] {
  if (b.type === 'text' && str(b.text)) return [{ type: 'text_delta', index, text: str(b.text) }];
  if (b.type !== 'thinking') return [];
  const out: StreamEvent[] = [];
  if (str(b.thinking)) out.push({ type: 'thinking_delta', index, text: str(b.thinking) });
  if (str(b.signature)) out.push({ type: 'signature_delta', index, signature: str(b.signature) });
  return out;
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

/**
 * Messages SSE → canonical stream events. Usage: `message_start` carries the prompt side, and
 * `message_delta` carries cumulative totals (the last one wins, nothing is added up). Blocks that
 * canonical cannot carry are skipped and the rest renumbered, so indexes stay contiguous.
 */
export async function* fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncGenerator<StreamEvent> {
  let usage: Usage | undefined;
  let stopReason: StopReason = 'end_turn';
  let stopSequence: string | undefined;
  const open = new Map<number, OpenBlock>();
  let next = 0;
  for await (const e of events) {
    if (e.event === 'ping') continue;
    const data = eventObject(e);
    const type = typeof data.type === 'string' ? data.type : e.event;
    if (type === 'ping') continue;
    if (type === 'error') {
      yield { type: 'error', error: inBandError(data.error) };
      return;
    }
    if (type === 'message_start') {
      const message = isObject(data.message) ? data.message : {};
      usage = fromAnthropicUsage(message.usage);
      // An upstream that counts the prompt only at the end sends zeros here; Claude Code shows this figure, so use the estimate.
      yield {
        type: 'start',
        id: str(message.id),
        model: str(message.model),
        usage: promptTokens(usage) > 0 ? usage : { ...promptUsage },
      };
      continue;
    }
    if (usage === undefined) {
      if (type === 'message_delta' || type === 'message_stop' || type?.startsWith('content_block'))
        throw upstreamMalformed(`the upstream sent ${type} before message_start.`);
      continue;
    }
    if (type === 'message_stop') {
      // An upstream that reports no prompt figures at all is billed on the estimate.
      const reported = promptTokens(usage) > 0;
      const final = reported
        ? usage
        : { ...promptUsage, outputTokens: usage.outputTokens, reasoningTokens: usage.reasoningTokens };
      const stop: StreamEvent = {
        type: 'stop',
        stopReason,
        usage: final,
        ...(stopSequence === undefined ? {} : { stopSequence }),
        ...(reported ? {} : { usageEstimated: true }),
      };
      yield stop;
      return;
    }
    const at = typeof data.index === 'number' ? data.index : -1;
    if (type === 'content_block_start') {
      const b = isObject(data.content_block) ? data.content_block : {};
      const start = blockStart(b);
      if (!start) continue;
      const block: OpenBlock = { index: next++, sawArgs: false };
      if (b.type === 'tool_use' && isObject(b.input) && Object.keys(b.input).length > 0)
        block.startInput = JSON.stringify(b.input);
      open.set(at, block);
      yield { type: 'block_start', index: block.index, block: start };
      // Usually none: Anthropic opens every block empty (a loop, not `yield*`, which wraps even an empty array).
      const initial = initialDeltas(block.index, b);
      for (let i = 0; i < initial.length; i++) yield initial[i]!;
    } else if (type === 'content_block_delta') {
      const block = open.get(at);
      const ev = block && isObject(data.delta) ? delta(block.index, data.delta) : undefined;
      if (!block || !ev) continue;
      if (ev.type === 'tool_args_delta') block.sawArgs = true;
      yield ev;
    } else if (type === 'content_block_stop') {
      const block = open.get(at);
      if (!block) continue;
      open.delete(at);
      if (block.startInput !== undefined && !block.sawArgs)
        yield { type: 'tool_args_delta', index: block.index, json: block.startInput };
      yield { type: 'block_stop', index: block.index };
    } else if (type === 'message_delta') {
      const d = isObject(data.delta) ? data.delta : {};
      if (d.stop_reason != null) stopReason = fromAnthropicStopReason(d.stop_reason);
      if (typeof d.stop_sequence === 'string') stopSequence = d.stop_sequence;
      usage = mergeAnthropicUsage(usage, data.usage);
    }
  }
  throw new GatewayError('upstream_error', 'Upstream error: the stream ended before message_stop.', {
    code: 'upstream_stream_incomplete',
  });
}
