/**
 * Canonical stream → `chat.completion.chunk` SSE, as the openai SDK expects it (docs/protocols.md §1):
 * a role chunk first, content and tool-call fragments, a finish chunk with `delta:{}`, the usage
 * chunk (`choices:[]`) only when the client asked for it, then `data: [DONE]`.
 *
 * Tool calls are numbered 0, 1, 2… in the order they start; that number is the `index` clients
 * join fragments by. Thinking streams as `reasoning_content` deltas and a Gemini call signature
 * rides on the call's first fragment, as in encode.ts. An `error` event
 * ends the stream with a `data: {"error":…}` chunk and no [DONE], which the SDKs raise.
 *
 * Pushed to one canonical event at a time (core/codec.ts StreamWriter): the relay feeds it from its
 * own loop, with no async generator between the events and the socket; encodeStream is the same
 * writer in a loop.
 */
import type { StreamEvent } from '../../core/canonical.js';
import { writtenStream, type EncodeContext, type StreamWriter } from '../../core/codec.js';
import { GatewayError } from '../../core/errors.js';
import { completionId, finishReason, geminiExtra, toOpenAIUsage, type FinishReason } from './encode.js';
import { encodeStreamError } from './errors.js';

export interface EncodeStreamOptions {
  /** The client sent `stream_options.include_usage: true`. */
  includeUsage: boolean;
}

type Delta = Record<string, unknown>;

/** One SSE event holding `json`: the text formatSse (core/sse.ts) writes for it, as JSON has no raw line ends. */
function line(json: string): string {
  return `data: ${json}\n\n`;
}

export class ChatStreamWriter implements StreamWriter {
  done = false;
  private id: string;
  private readonly created = Math.floor(Date.now() / 1000);
  private started = false;
  /** Canonical block index → OpenAI tool-call index, for tool blocks only. */
  private readonly toolIndex = new Map<number, number>();
  /**
   * Every chunk's JSON up to its delta, and after it: what JSON.stringify writes for
   * `{id, object, created, model, choices:[{index, delta, logprobs, finish_reason}], usage?}`, with only the
   * delta and the finish reason written per chunk. Rebuilt when `start` renames the completion.
   */
  private head = '';
  private readonly tail: string;

  constructor(
    private readonly ctx: EncodeContext,
    private readonly opts: EncodeStreamOptions,
  ) {
    this.id = completionId('', ctx);
    this.tail = opts.includeUsage ? ',"usage":null}' : '}';
    this.setHead();
  }

  private setHead(): void {
    this.head = `{"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.created},"model":${JSON.stringify(this.ctx.requestedModel)},"choices":[{"index":0,"delta":`;
  }

  private chunk(delta: Delta, finish: FinishReason | null = null): string {
    return line(
      `${this.head}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${this.tail}`,
    );
  }

  /** A stream should open with `start`; if it does not, the role chunk still goes first. */
  private opening(): string {
    if (this.started) return '';
    this.started = true;
    return this.chunk({ role: 'assistant', content: '' });
  }

  /** The SSE text of one canonical event, all of its chunks in one string. */
  push(ev: StreamEvent): string | undefined {
    let out: string;
    switch (ev.type) {
      case 'start':
        if (!this.started) {
          const id = completionId(ev.id, this.ctx);
          if (id !== this.id) {
            this.id = id;
            this.setHead();
          }
        }
        out = this.opening();
        break;
      case 'block_start':
        out = this.opening();
        if (ev.block.type === 'tool_call') {
          const k = this.toolIndex.size;
          this.toolIndex.set(ev.index, k);
          out += this.chunk({
            tool_calls: [
              {
                index: k,
                id: ev.block.id,
                type: 'function',
                function: { name: ev.block.name, arguments: '' },
                ...geminiExtra(ev.block),
              },
            ],
          });
        }
        break;
      case 'text_delta':
        out = this.opening();
        if (ev.text !== '') out += this.chunk({ content: ev.text });
        break;
      case 'thinking_delta':
        out = this.opening();
        if (ev.text !== '') out += this.chunk({ reasoning_content: ev.text });
        break;
      case 'tool_args_delta': {
        const k = this.toolIndex.get(ev.index);
        out =
          k !== undefined && ev.json !== ''
            ? this.chunk({ tool_calls: [{ index: k, function: { arguments: ev.json } }] })
            : '';
        break;
      }
      case 'stop':
        out = this.opening() + this.chunk({}, finishReason(ev.stopReason));
        if (this.opts.includeUsage)
          out += line(
            JSON.stringify({
              id: this.id,
              object: 'chat.completion.chunk',
              created: this.created,
              model: this.ctx.requestedModel,
              choices: [],
              usage: toOpenAIUsage(ev.usage),
            }),
          );
        out += 'data: [DONE]\n\n';
        this.done = true;
        break;
      case 'error':
        out = encodeStreamError(ev.error);
        this.done = true;
        break;
      default:
        // signatures of thinking and block stops have no Chat Completions form.
        out = '';
        break;
    }
    return out === '' ? undefined : out;
  }

  /** The provider ended without `stop` or `error`: tell the client rather than fake a finish. */
  end(): string {
    this.done = true;
    return encodeStreamError(
      new GatewayError('upstream_error', 'Upstream error: the upstream closed the stream before it was complete.', {
        code: 'upstream_stream_incomplete',
      }),
    );
  }
}

export function encodeStream(
  events: AsyncIterable<StreamEvent>,
  ctx: EncodeContext,
  opts: EncodeStreamOptions,
): AsyncGenerator<string> {
  return writtenStream(new ChatStreamWriter(ctx, opts), events);
}
