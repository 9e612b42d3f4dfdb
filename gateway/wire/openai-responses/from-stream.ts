/**
 * An OpenAI Responses SSE stream → canonical stream events.
 *
 * Output items arrive one after another, so each maps onto canonical blocks in order:
 * - a message's content parts are text blocks (content_part.added … content_part.done), refusal
 *   parts included (the stop reason is then `refusal`), with the message's `phase`;
 * - a compaction item is a `compaction` event at its output_item.done;
 * - a function_call item is a tool_call block opened at output_item.added with its `call_id`,
 *   fed by function_call_arguments.delta, closed at output_item.done (`{}` if it had no arguments);
 * - a reasoning item is a thinking block, opened only once it has summary text or an
 *   `encrypted_content` (sent as the signature at output_item.done): OpenAI sends empty reasoning
 *   items when no summary was asked for, and they carry nothing.
 * Usage arrives only in the terminal response, so `start` carries the caller's prompt estimate and
 * `stop` the upstream's totals (or the estimate, flagged, when there are none). Servers that skip
 * the delta events and send only the `.done` ones still give their text.
 */
import type { BlockStart, Phase, StreamEvent } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { isObject as isObj, type JsonObject as Obj, str } from '../../core/json.js';
import { eventObject, type SseEvent } from '../../core/sse.js';
import type { Usage } from '../../core/usage.js';
import { partsText, phaseOf, stopReasonOf, upstreamReported } from './from-response.js';
import { fromResponsesUsage } from './usage.js';

interface Item {
  type: 'message' | 'function_call' | 'reasoning';
  /** Text, arguments or thinking already sent for this item. */
  sent: boolean;
  /** Reasoning: a later summary part starts; its text is joined with "\n\n", as in fromResponse. */
  separate?: boolean;
  /** Message: its phase, from output_item.added. */
  phase?: Phase;
}

type Kind = 'text' | 'thinking' | 'tool_call';
/** `sent`: the block has had a delta. */
type Open = { index: number; item: Item; kind: Kind; sent: boolean };

const textStart = (item: Item): BlockStart => (item.phase ? { type: 'text', phase: item.phase } : { type: 'text' });

/** Contiguous canonical blocks, one open at a time; events are pushed to `out`. */
class Blocks {
  private next = 0;
  open: Open | undefined;
  constructor(private readonly out: StreamEvent[]) {}

  start(item: Item, block: BlockStart): Open {
    this.close();
    const open: Open = (this.open = { index: this.next++, item, kind: block.type as Kind, sent: false });
    this.out.push({ type: 'block_start', index: open.index, block });
    return open;
  }

  /** The open block of `item` and `kind`, opening one if needed; it is about to get a delta. */
  ensure(item: Item, kind: 'text' | 'thinking'): number {
    const open =
      this.open?.item === item && this.open.kind === kind
        ? this.open
        : this.start(item, kind === 'thinking' ? { type: 'thinking', family: 'openai' } : textStart(item));
    open.sent = true;
    return open.index;
  }

  close(item?: Item): void {
    if (!this.open || (item && this.open.item !== item)) return;
    this.out.push({ type: 'block_stop', index: this.open.index });
    this.open = undefined;
  }
}

export async function* fromStream(events: AsyncIterable<SseEvent>, promptUsage: Usage): AsyncGenerator<StreamEvent> {
  const out: StreamEvent[] = [];
  const blocks = new Blocks(out);
  const items = new Map<unknown, Item>();
  let started = false;
  let calls = 0;
  let refused = false;
  const start = (response?: unknown): void => {
    if (started) return;
    started = true;
    const r = isObj(response) ? response : {};
    out.push({ type: 'start', id: str(r.id), model: str(r.model), usage: promptUsage });
  };
  const text = (item: Item, t: string): void => {
    if (t === '') return;
    item.sent = true;
    out.push({ type: 'text_delta', index: blocks.ensure(item, 'text'), text: t });
  };
  const thinking = (item: Item, t: string): void => {
    if (t === '') return;
    const sep = item.separate && item.sent ? '\n\n' : '';
    item.sent = true;
    item.separate = false;
    out.push({ type: 'thinking_delta', index: blocks.ensure(item, 'thinking'), text: sep + t });
  };
  const args = (item: Item, json: string): void => {
    if (json === '' || blocks.open?.item !== item) return;
    item.sent = true;
    out.push({ type: 'tool_args_delta', index: blocks.open.index, json });
  };
  const openCall = (key: unknown, raw: Obj): Item => {
    const item: Item = { type: 'function_call', sent: false };
    items.set(key, item);
    blocks.start(item, {
      type: 'tool_call',
      id: str(raw.call_id) || str(raw.id) || `call_${calls}`,
      name: str(raw.name),
    });
    calls++;
    if (str(raw.arguments)) args(item, str(raw.arguments));
    return item;
  };

  for await (const e of events) {
    if (e.data === '[DONE]') continue;
    const data = eventObject(e);
    const type = str(data.type) || e.event;
    const key = typeof data.output_index === 'number' ? data.output_index : data.item_id;
    const item = items.get(key);
    const raw = isObj(data.item) ? data.item : {};
    const part = isObj(data.part) ? data.part : {};
    switch (type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        start(data.response);
        break;
      case 'response.output_item.added':
        start();
        if (raw.type === 'function_call') openCall(key, raw);
        else if (raw.type === 'message') items.set(key, { type: 'message', sent: false, ...phaseOf(raw) });
        else if (raw.type === 'reasoning') items.set(key, { type: 'reasoning', sent: false });
        break;
      case 'response.content_part.added':
        if (item?.type !== 'message') break;
        blocks.start(item, textStart(item));
        if (part.type === 'refusal') refused = true;
        text(item, str(part.text) || str(part.refusal));
        break;
      case 'response.refusal.delta':
      case 'response.output_text.delta':
        // A refusal is what the model said: text, with the stop reason to match.
        if (type === 'response.refusal.delta') refused = true;
        if (item?.type === 'message') text(item, str(data.delta));
        break;
      case 'response.output_text.done':
      case 'response.refusal.done':
      case 'response.content_part.done':
        if (item?.type !== 'message') break;
        // A server that sent no deltas for this part gives its text here.
        if (!(blocks.open?.item === item && blocks.open.sent))
          text(item, str(data.text) || str(data.refusal) || str(part.text) || str(part.refusal));
        if (type === 'response.content_part.done') blocks.close(item);
        break;
      case 'response.function_call_arguments.delta':
        if (item?.type === 'function_call') args(item, str(data.delta));
        break;
      case 'response.function_call_arguments.done':
        if (item?.type === 'function_call' && !item.sent) args(item, str(data.arguments));
        break;
      case 'response.reasoning_summary_part.added':
        if (item?.type === 'reasoning' && typeof data.summary_index === 'number' && data.summary_index > 0)
          item.separate = true;
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (item?.type === 'reasoning') thinking(item, str(data.delta));
        break;
      case 'response.reasoning_summary_text.done':
      case 'response.reasoning_text.done':
        if (item?.type === 'reasoning' && !item.sent) thinking(item, str(data.text));
        break;
      case 'response.output_item.done': {
        start();
        items.delete(key);
        if (raw.type === 'message') {
          const done = item ?? { type: 'message', sent: false, ...phaseOf(raw) };
          if (!done.sent) {
            // Nothing was streamed for this message: each part of the finished item is a block.
            for (const p of Array.isArray(raw.content) ? raw.content : []) {
              if (!isObj(p) || !(str(p.text) || str(p.refusal))) continue;
              blocks.start(done, textStart(done));
              if (p.type === 'refusal') refused = true;
              text(done, str(p.text) || str(p.refusal));
            }
          }
          blocks.close(done);
        } else if (raw.type === 'function_call') {
          const call = item ?? openCall(key, raw);
          if (!call.sent) args(call, str(raw.arguments) || '{}');
          blocks.close(call);
        } else if ((raw.type === 'compaction' || raw.type === 'compaction_summary') && str(raw.encrypted_content)) {
          blocks.close();
          out.push({
            type: 'compaction',
            data: str(raw.encrypted_content),
            ...(str(raw.id) ? { id: str(raw.id) } : {}),
          });
        } else if (raw.type === 'reasoning') {
          const r = item ?? { type: 'reasoning', sent: false };
          if (!r.sent) thinking(r, partsText(raw.summary, 'summary_text') || partsText(raw.content, 'reasoning_text'));
          const signature = str(raw.encrypted_content);
          if (signature) out.push({ type: 'signature_delta', index: blocks.ensure(r, 'thinking'), signature });
          blocks.close(r);
        }
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        start(data.response);
        blocks.close();
        const response = isObj(data.response) ? data.response : {};
        const details = isObj(response.incomplete_details) ? response.incomplete_details : {};
        const reported = isObj(response.usage);
        out.push({
          type: 'stop',
          stopReason: stopReasonOf(
            type === 'response.incomplete' ? 'incomplete' : response.status,
            details.reason,
            calls > 0,
            refused,
          ),
          usage: reported ? fromResponsesUsage(response.usage) : promptUsage,
          ...(reported ? {} : { usageEstimated: true }),
        });
        yield* out.splice(0);
        return;
      }
      case 'response.failed':
      case 'error': {
        yield* out.splice(0);
        const response = isObj(data.response) ? data.response : {};
        const error = type === 'error' ? (isObj(data.error) ? data.error : data) : response.error;
        yield { type: 'error', error: upstreamReported(error ?? 'the upstream reported the response as failed', true) };
        return;
      }
      default:
        // keepalive, annotations, hosted-tool progress…: nothing canonical.
        break;
    }
    yield* out.splice(0);
  }
  throw new GatewayError(
    'upstream_error',
    'Upstream error: the upstream closed the stream before response.completed.',
    { code: 'upstream_stream_incomplete' },
  );
}
