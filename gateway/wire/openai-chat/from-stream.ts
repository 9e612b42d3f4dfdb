/**
 * An OpenAI-compatible `chat.completion.chunk` stream → canonical stream events.
 *
 * The canonical stream allows one open block at a time; OpenAI may stream parallel tool calls
 * interleaved by `index` (docs/protocols.md §6.10). The approach:
 * - Text, and `reasoning_content`/`reasoning` (as a thinking block), stream live.
 * - The first tool call streams live. A fragment of another call closes the live one if its
 *   arguments already parse as complete JSON (OpenAI sends parallel calls one after another, so
 *   they all stream live); otherwise the other call is buffered, and each buffered call is sent
 *   whole, as one block after another, when the live one closes or the choice finishes.
 * - A call with no arguments gets a `{}` delta, so its JSON always parses.
 * Usage arrives only in the last chunk (we always send stream_options.include_usage), so `start`
 * carries the caller's prompt estimate and `stop` the upstream's totals, or the estimate again
 * when the upstream sent none (the caller counts the output). `stop` goes out at [DONE].
 */
import type { StreamEvent } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { eventObject, type SseEvent } from '../../core/sse.js';
import { decodedStream, type StreamDecoder } from '../../core/stream-decoder.js';
import type { Usage } from '../../core/usage.js';
import { reasoningOf, stopReasonOf, upstreamReported } from './from-response.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';

interface ToolFragment {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatChunk {
  id?: string;
  model?: string;
  error?: unknown;
  usage?: OpenAIUsage | null;
  choices?: {
    index?: number;
    delta?: Record<string, unknown> & { content?: unknown; refusal?: unknown; tool_calls?: ToolFragment[] };
    finish_reason?: string | null;
  }[];
}

interface Call {
  id: string;
  name: string;
  args: string;
  state: 'waiting' | 'live' | 'done';
}

type Open = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool'; index: number; call: Call };

function isCompleteJson(s: string): boolean {
  if (s.trim() === '') return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** Turns deltas into contiguous canonical blocks; events are pushed to `out`. */
class BlockWriter {
  private next = 0;
  private open: Open | null = null;
  /** By upstream tool-call index, in order of first appearance. */
  private readonly calls = new Map<number, Call>();

  constructor(private readonly out: StreamEvent[]) {}

  get sawToolCall(): boolean {
    return this.calls.size > 0;
  }

  text(kind: 'text' | 'thinking', text: string): void {
    if (this.open?.kind !== kind) {
      this.closeAll();
      this.open = { kind, index: this.next++ };
      this.out.push({
        type: 'block_start',
        index: this.open.index,
        block: kind === 'thinking' ? { type: 'thinking', family: 'openai-chat' } : { type: 'text' },
      });
    }
    const index = this.open.index;
    this.out.push(kind === 'text' ? { type: 'text_delta', index, text } : { type: 'thinking_delta', index, text });
  }

  tool(key: number, f: ToolFragment): void {
    if (this.open && this.open.kind !== 'tool') this.closeOpen();
    const open = this.open;
    if (open?.kind === 'tool' && open.call !== this.calls.get(key) && isCompleteJson(open.call.args)) this.closeOpen();
    let call = this.calls.get(key);
    if (!call) {
      call = { id: f.id ?? '', name: f.function?.name ?? '', args: '', state: 'waiting' };
      this.calls.set(key, call);
    } else if (call.state === 'waiting') {
      call.id ||= f.id ?? '';
      call.name ||= f.function?.name ?? '';
    }
    // A closed call's JSON was complete; only whitespace could validly follow it.
    if (call.state === 'done') return;
    const args = f.function?.arguments ?? '';
    call.args += args;
    if (call.state === 'live' && this.open) {
      if (args !== '') this.out.push({ type: 'tool_args_delta', index: this.open.index, json: args });
    } else if (!this.open) this.startWaiting();
  }

  /** Closes the open block, then sends every buffered tool call whole. */
  closeAll(): void {
    this.closeOpen();
    while (this.startWaiting()) this.closeOpen();
  }

  private startWaiting(): boolean {
    const call = [...this.calls.values()].find((c) => c.state === 'waiting');
    if (!call) return false;
    call.state = 'live';
    const index = this.next++;
    this.open = { kind: 'tool', index, call };
    // A server that sends no call id gets one made up, as in fromResponse: results must refer to it.
    this.out.push({
      type: 'block_start',
      index,
      block: { type: 'tool_call', id: call.id || `call_${index}`, name: call.name },
    });
    if (call.args !== '') this.out.push({ type: 'tool_args_delta', index, json: call.args });
    return true;
  }

  private closeOpen(): void {
    const open = this.open;
    if (!open) return;
    if (open.kind === 'tool') {
      if (open.call.args.trim() === '') this.out.push({ type: 'tool_args_delta', index: open.index, json: '{}' });
      open.call.state = 'done';
    }
    this.out.push({ type: 'block_stop', index: open.index });
    this.open = null;
  }
}

const NONE: readonly StreamEvent[] = Object.freeze([]);

/** Chat Completions chunks → canonical stream events, one upstream event at a time (core/stream-decoder.ts). */
export class ChatStreamDecoder implements StreamDecoder {
  done = false;
  private out: StreamEvent[] = [];
  private readonly blocks: BlockWriter;
  private started = false;
  private finish: string | null = null;
  private refused = false;
  private usage: Usage | undefined;

  constructor(private readonly promptUsage: Usage) {
    // The writer keeps the array it was given: events are taken out of it, never the array swapped.
    this.blocks = new BlockWriter(this.out);
  }

  push(ev: SseEvent): readonly StreamEvent[] {
    if (ev.data === '[DONE]') return this.stop();
    const chunk = eventObject(ev) as ChatChunk;
    if (chunk.error !== undefined && chunk.error !== null) {
      this.done = true;
      this.out.push({ type: 'error', error: upstreamReported(chunk.error, true) });
      return this.take();
    }
    this.start(chunk.id, chunk.model);
    if (chunk.usage) this.usage = fromOpenAIUsage(chunk.usage);
    // Tollgate never asks for n > 1; only the first choice is read.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (choice) {
      const blocks = this.blocks;
      const d = choice.delta ?? {};
      const reasoning = reasoningOf(d);
      if (reasoning !== '') blocks.text('thinking', reasoning);
      if (typeof d.content === 'string' && d.content !== '') blocks.text('text', d.content);
      if (typeof d.refusal === 'string' && d.refusal !== '') {
        this.refused = true;
        blocks.text('text', d.refusal);
      }
      // Servers that omit `index` send one call per position.
      (d.tool_calls ?? []).forEach((f, pos) => blocks.tool(f.index ?? pos, f));
      if (choice.finish_reason) {
        this.finish = choice.finish_reason;
        blocks.closeAll();
      }
    }
    return this.take();
  }

  end(): readonly StreamEvent[] {
    // Some compatible servers omit [DONE]; a finish_reason shows the answer was complete.
    if (this.finish === null) {
      throw new GatewayError(
        'upstream_error',
        'Upstream error: the upstream closed the stream before it was complete.',
        { code: 'upstream_stream_incomplete' },
      );
    }
    return this.stop();
  }

  /** [DONE], or the end after a finish_reason: the blocks closed and the stop event. */
  private stop(): readonly StreamEvent[] {
    this.done = true;
    this.start();
    this.blocks.closeAll();
    const usage = this.usage;
    const stop: Extract<StreamEvent, { type: 'stop' }> = {
      type: 'stop',
      stopReason: stopReasonOf(this.finish, this.blocks.sawToolCall, this.refused),
      usage: usage ?? this.promptUsage,
    };
    if (!usage) stop.usageEstimated = true;
    this.out.push(stop);
    return this.take();
  }

  private start(id = '', model = ''): void {
    if (!this.started) this.out.push({ type: 'start', id, model, usage: this.promptUsage });
    this.started = true;
  }

  /** The events made since the last take. */
  private take(): readonly StreamEvent[] {
    if (this.out.length === 0) return NONE;
    return this.out.splice(0);
  }
}

/** Chat Completions SSE → canonical stream events: ChatStreamDecoder over each event. */
export function fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncGenerator<StreamEvent> {
  return decodedStream(new ChatStreamDecoder(promptUsage), events);
}
