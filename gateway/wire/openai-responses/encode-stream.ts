/**
 * Canonical stream → Responses SSE (docs/protocols.md §3): `event: <type>` + `data: {type,
 * sequence_number, …}`, sequence numbers from 0 and one apart, no `[DONE]`.
 *
 * response.created and response.in_progress open the stream; each output item is announced
 * (output_item.added), filled in (content parts and text deltas for a message, argument deltas
 * for a function_call, one summary part for reasoning) and finished (output_item.done with the
 * whole item); the terminal event is response.completed or response.incomplete carrying the
 * final response, usage included: Codex counts tokens from it and treats a stream without it as
 * broken. Adjacent text blocks of one phase are content parts of one message item, and a
 * compaction is one whole item, as in encode.ts.
 *
 * Thinking becomes a reasoning item once it has text, or at its end when it has an
 * `encrypted_content` to carry: OpenAI's own signature, or Tollgate's mark for another family's
 * reasoning (encode.ts encryptedOf; the block's family comes with its block_start). Redacted
 * thinking and a tool call's own signature are reasoning items holding only a mark, the latter
 * just before its function_call, as in encode.ts.
 * An `error` event becomes an `error` event followed by response.failed, whose `response.error`
 * is what Codex reads; a stream that just ends is reported the same way.
 */
import type { BlockStart, Phase, ProviderFamily, StopReason, StreamEvent } from '../../core/canonical.js';
import { writtenStream, type EncodeContext, type StreamWriter } from '../../core/codec.js';
import { GatewayError } from '../../core/errors.js';
import type { Usage } from '../../core/usage.js';
import {
  callCarrier,
  compactionItem,
  encryptedOf,
  functionCallItem,
  idBase,
  itemIdOf,
  type ItemPrefix,
  redactedCarrier,
  reasoningItem,
  responseShell,
  statusOf,
  toResponsesUsage,
  type OutputItem,
  type OutputText,
  type ResponsesEncodeOptions,
} from './encode.js';

/**
 * The error code clients act on. Codex stops retrying on `insufficient_quota` and waits on
 * `rate_limit_exceeded`; the other codes are Tollgate's own, as in the HTTP error body.
 */
export function responsesErrorCode(err: GatewayError): string {
  if (err.kind === 'insufficient_funds') return 'insufficient_quota';
  if (err.kind === 'rate_limit') return 'rate_limit_exceeded';
  if (err.kind === 'authentication') return 'invalid_api_key';
  return err.code;
}

/**
 * One event: `type` and `sequence_number` first, then `data`'s fields, written as text around `data`'s own JSON
 * rather than as a copied object (`{ type, sequence_number, ...data }` is a copy on V8's slow path in Node 20, once
 * per event of every stream). No caller's `data` has a `type` or `sequence_number` of its own.
 */
function frame(type: string, sequenceNumber: number, data: Record<string, unknown>): string {
  return frameJson(type, sequenceNumber, JSON.stringify(data).slice(1, -1));
}

/**
 * The event's SSE text around `fields`, the JSON of its other members without their braces ('' for none). Written
 * here rather than through formatSse: JSON text never holds a raw CR or LF (JSON.stringify escapes them), so the
 * data is always one `data:` line, and formatSse's search for line ends in every event's text is saved. `type` is
 * one of this file's event names, plain ASCII that JSON spells as it is.
 */
function frameJson(type: string, sequenceNumber: number, fields: string): string {
  return fields === ''
    ? `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequenceNumber}}\n\n`
    : `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequenceNumber},${fields}}\n\n`;
}

/** A failure after the 200 on the pass-through path: one `error` event (the caller knows the next sequence number). */
export function encodeStreamError(err: GatewayError, sequenceNumber = 0): string {
  return frame('error', sequenceNumber, {
    code: responsesErrorCode(err),
    message: err.message,
    param: err.param ?? null,
  });
}

type Open =
  | { kind: 'message'; id: string; index: number; content: OutputText[]; part?: OutputText; phase?: Phase }
  | { kind: 'function_call'; id: string; index: number; callId: string; name: string; args: string }
  | { kind: 'reasoning'; id: string; index: number; text: string };

/** Turns canonical events into Responses events, numbering them; one output item is open at a time. */
class Writer {
  private seq = 0;
  private started = false;
  private readonly createdAt = Math.floor(Date.now() / 1000);
  /** The request id's part of every item id (idBase), taken once. */
  private readonly base: string;
  private readonly output: OutputItem[] = [];
  private item: Open | undefined;
  /** The kind of the canonical block that is open, if any. */
  private block: BlockStart['type'] | undefined;
  /** The open thinking block's family, and its signature once it came. */
  private thinkingBlock: { family?: ProviderFamily; signature?: string } | undefined;

  constructor(
    private readonly ctx: EncodeContext,
    private readonly opts: ResponsesEncodeOptions,
  ) {
    this.base = idBase(ctx);
  }

  /** The id of the output item at the next index. */
  private itemId(prefix: ItemPrefix): string {
    return itemIdOf(prefix, this.base, this.output.length);
  }

  private emit(type: string, data: Record<string, unknown>): string {
    return frame(type, this.seq++, data);
  }

  /** An event whose other members are already JSON text (frameJson). */
  private emitJson(type: string, fields: string): string {
    return frameJson(type, this.seq++, fields);
  }

  private at(item: Open): Record<string, unknown> {
    return { item_id: item.id, output_index: item.index };
  }

  /** The SDK's accumulator needs response.created before anything else, an error included. */
  open(): string[] {
    if (this.started) return [];
    this.started = true;
    const response = responseShell(this.ctx, this.opts, this.createdAt, {
      status: 'in_progress',
      incomplete_details: null,
    });
    // The same response in both events: its JSON made once.
    const fields = `"response":${JSON.stringify(response)}`;
    return [this.emitJson('response.created', fields), this.emitJson('response.in_progress', fields)];
  }

  blockStart(b: BlockStart): string[] {
    this.block = b.type;
    const out: string[] = [];
    if (b.type === 'text') {
      let item = this.item;
      if (item?.kind !== 'message' || item.phase !== b.phase) {
        out.push(...this.closeItem());
        const phase = b.phase ? { phase: b.phase } : {};
        item = this.item = {
          kind: 'message',
          id: this.itemId('msg'),
          index: this.output.length,
          content: [],
          ...phase,
        };
        out.push(
          this.emit('response.output_item.added', {
            output_index: item.index,
            item: { type: 'message', id: item.id, role: 'assistant', status: 'in_progress', content: [], ...phase },
          }),
        );
      }
      item.part = { type: 'output_text', text: '', annotations: [] };
      out.push(
        this.emit('response.content_part.added', {
          ...this.at(item),
          content_index: item.content.length,
          part: { ...item.part },
        }),
      );
    } else if (b.type === 'tool_call') {
      out.push(...this.closeItem());
      if (b.signature) out.push(...this.wholeReasoning(callCarrier(b.id, b.signature, b.signatureFamily)));
      const item: Open = (this.item = {
        kind: 'function_call',
        id: this.itemId('fc'),
        index: this.output.length,
        callId: b.id,
        name: b.name,
        args: '',
      });
      out.push(
        this.emit('response.output_item.added', {
          output_index: item.index,
          item: functionCallItem(item.id, b.id, b.name, '', 'in_progress', this.opts),
        }),
      );
    } else if (b.type === 'redacted_thinking') {
      out.push(...this.closeItem(), ...this.wholeReasoning(redactedCarrier(b.data, b.family)));
    } else {
      // Thinking opens its item on its first text, or at its end if it has only a signature.
      this.thinkingBlock = { ...(b.family ? { family: b.family } : {}) };
    }
    return out;
  }

  /** A compaction item, added and done at once. */
  compaction(data: string, id: string | undefined): string[] {
    const out = this.closeItem();
    const index = this.output.length;
    const item = compactionItem(id ?? this.itemId('cmp'), data);
    this.output.push(item);
    out.push(
      this.emit('response.output_item.added', { output_index: index, item }),
      this.emit('response.output_item.done', { output_index: index, item }),
    );
    return out;
  }

  /** A reasoning item with no summary, added and done at once: a carrier of a mark. */
  private wholeReasoning(encrypted: string): string[] {
    const id = this.itemId('rs');
    const index = this.output.length;
    const done = reasoningItem(id, '', encrypted);
    this.output.push(done);
    return [
      this.emit('response.output_item.added', { output_index: index, item: reasoningItem(id, '', undefined) }),
      this.emit('response.output_item.done', { output_index: index, item: done }),
    ];
  }

  signature(signature: string): void {
    if (this.block === 'thinking' && this.thinkingBlock) this.thinkingBlock.signature = signature;
  }

  text(delta: string): string[] {
    const item = this.item;
    if (this.block !== 'text' || item?.kind !== 'message' || !item.part || delta === '') return [];
    item.part.text += delta;
    // The stream's most frequent event, its JSON written out: the item id is made of [A-Za-z0-9_-] only (itemId).
    return [
      this.emitJson(
        'response.output_text.delta',
        `"item_id":"${item.id}","output_index":${item.index},"content_index":${item.content.length},"delta":${JSON.stringify(delta)},"logprobs":[]`,
      ),
    ];
  }

  thinking(delta: string): string[] {
    if (this.block !== 'thinking' || delta === '') return [];
    const out: string[] = [];
    let item = this.item;
    if (item?.kind !== 'reasoning') {
      out.push(...this.closeItem());
      item = this.item = {
        kind: 'reasoning',
        id: this.itemId('rs'),
        index: this.output.length,
        text: '',
      };
      out.push(
        this.emit('response.output_item.added', {
          output_index: item.index,
          item: reasoningItem(item.id, '', undefined),
        }),
      );
      out.push(
        this.emit('response.reasoning_summary_part.added', {
          ...this.at(item),
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        }),
      );
    }
    item.text += delta;
    out.push(
      this.emitJson(
        'response.reasoning_summary_text.delta',
        `"item_id":"${item.id}","output_index":${item.index},"summary_index":0,"delta":${JSON.stringify(delta)}`,
      ),
    );
    return out;
  }

  args(delta: string): string[] {
    const item = this.item;
    if (this.block !== 'tool_call' || item?.kind !== 'function_call' || delta === '') return [];
    item.args += delta;
    return [
      this.emitJson(
        'response.function_call_arguments.delta',
        `"item_id":"${item.id}","output_index":${item.index},"delta":${JSON.stringify(delta)}`,
      ),
    ];
  }

  blockStop(): string[] {
    const kind = this.block;
    this.block = undefined;
    if (kind === 'text') return this.closePart();
    if (kind === 'thinking') {
      const encrypted = this.thinkingBlock ? encryptedOf(this.thinkingBlock) : undefined;
      this.thinkingBlock = undefined;
      if (this.item?.kind === 'reasoning') return this.closeItem(encrypted);
      return encrypted === undefined ? [] : [...this.closeItem(), ...this.wholeReasoning(encrypted)];
    }
    // A message stays open across text blocks; anything else ends with its block.
    return kind === 'tool_call' ? this.closeItem() : [];
  }

  private closePart(): string[] {
    const item = this.item;
    if (item?.kind !== 'message' || !item.part) return [];
    const part = item.part;
    const at = { ...this.at(item), content_index: item.content.length };
    item.content.push(part);
    item.part = undefined;
    return [
      this.emit('response.output_text.done', { ...at, text: part.text, logprobs: [] }),
      this.emit('response.content_part.done', { ...at, part: { ...part } }),
    ];
  }

  private closeItem(encrypted?: string): string[] {
    const item = this.item;
    if (!item) return [];
    const out = this.closePart();
    this.item = undefined;
    let done: OutputItem;
    if (item.kind === 'message')
      done = {
        type: 'message',
        id: item.id,
        role: 'assistant',
        status: 'completed',
        content: item.content,
        ...(item.phase ? { phase: item.phase } : {}),
      };
    else if (item.kind === 'function_call') {
      done = functionCallItem(item.id, item.callId, item.name, item.args, 'completed', this.opts);
      out.push(
        this.emit('response.function_call_arguments.done', { ...this.at(item), name: item.name, arguments: item.args }),
      );
    } else {
      done = reasoningItem(item.id, item.text, encrypted);
      const at = { ...this.at(item), summary_index: 0 };
      out.push(this.emit('response.reasoning_summary_text.done', { ...at, text: item.text }));
      out.push(
        this.emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: item.text } }),
      );
    }
    this.output.push(done);
    out.push(this.emit('response.output_item.done', { output_index: item.index, item: done }));
    return out;
  }

  finish(stop: { stopReason: StopReason; usage: Usage }): string[] {
    const out = this.closeItem();
    const response = responseShell(this.ctx, this.opts, this.createdAt, statusOf(stop.stopReason));
    response.output = this.output;
    response.usage = toResponsesUsage(stop.usage);
    out.push(this.emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response }));
    this.opts.onResponse?.(response);
    return out;
  }

  /** An item still open is left out of the failed response: it never finished. */
  fail(err: GatewayError): string[] {
    const code = responsesErrorCode(err);
    const response = responseShell(this.ctx, this.opts, this.createdAt, { status: 'failed', incomplete_details: null });
    response.output = this.output;
    response.error = { code, message: err.message };
    const out = [
      this.emit('error', { code, message: err.message, param: err.param ?? null }),
      this.emit('response.failed', { response }),
    ];
    this.opts.onResponse?.(response);
    return out;
  }
}

/** The events one canonical event gave, as one chunk: one socket write for them, not one each (undefined: none). */
function chunk(events: string[]): string | undefined {
  return events.length === 0 ? undefined : events.length === 1 ? events[0] : events.join('');
}

/** The Writer fed canonical events one at a time (ClientEncoder.streamWriter); encodeStream's loop is this too. */
export class ResponsesStreamWriter implements StreamWriter {
  private readonly w: Writer;
  done = false;

  constructor(ctx: EncodeContext, opts: ResponsesEncodeOptions = {}) {
    this.w = new Writer(ctx, opts);
  }

  push(ev: StreamEvent): string | undefined {
    const w = this.w;
    const out = w.open();
    switch (ev.type) {
      case 'block_start':
        out.push(...w.blockStart(ev.block));
        break;
      case 'text_delta':
        out.push(...w.text(ev.text));
        break;
      case 'thinking_delta':
        out.push(...w.thinking(ev.text));
        break;
      case 'tool_args_delta':
        out.push(...w.args(ev.json));
        break;
      case 'signature_delta':
        w.signature(ev.signature);
        break;
      case 'block_stop':
        out.push(...w.blockStop());
        break;
      case 'compaction':
        out.push(...w.compaction(ev.data, ev.id));
        break;
      case 'stop':
        out.push(...w.finish(ev));
        this.done = true;
        break;
      case 'error':
        out.push(...w.fail(ev.error));
        this.done = true;
        break;
      default:
        // start has nothing Responses shows before the end.
        break;
    }
    return chunk(out);
  }

  /** The provider ended without `stop` or `error`: tell the client rather than fake a completion. */
  end(): string {
    const out = this.w.open();
    out.push(
      ...this.w.fail(
        new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', {
          code: 'upstream_stream_incomplete',
        }),
      ),
    );
    this.done = true;
    return chunk(out)!;
  }
}

/**
 * Responses events, as many per canonical event as the format has (four around the first text alone), each
 * chunk yielded holding all of one canonical event's: the relay writes each chunk to the socket by itself.
 */
export function encodeStream(
  events: AsyncIterable<StreamEvent>,
  ctx: EncodeContext,
  opts: ResponsesEncodeOptions = {},
): AsyncGenerator<string> {
  return writtenStream(new ResponsesStreamWriter(ctx, opts), events);
}
