/**
 * Canonical stream → `chat.completion.chunk` SSE, as the openai SDK expects it (docs/protocols.md §1):
 * a role chunk first, content and tool-call fragments, a finish chunk with `delta:{}`, the usage
 * chunk (`choices:[]`) only when the client asked for it, then `data: [DONE]`.
 *
 * Tool calls are numbered 0, 1, 2… in the order they start; that number is the `index` clients
 * join fragments by. Thinking streams as `reasoning_content` deltas and a Gemini call signature
 * rides on the call's first fragment, as in encode.ts. An `error` event
 * ends the stream with a `data: {"error":…}` chunk and no [DONE], which the SDKs raise.
 */
import type { StreamEvent } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { GatewayError } from '../../core/errors.js';
import { formatSse } from '../../core/sse.js';
import { completionId, finishReason, geminiExtra, toOpenAIUsage, type FinishReason } from './encode.js';
import { encodeError } from './errors.js';

export interface EncodeStreamOptions {
  /** The client sent `stream_options.include_usage: true`. */
  includeUsage: boolean;
}

type Delta = Record<string, unknown>;

function line(value: unknown): string {
  return formatSse({ data: JSON.stringify(value) });
}

export async function* encodeStream(
  events: AsyncIterable<StreamEvent>,
  ctx: EncodeContext,
  opts: EncodeStreamOptions,
): AsyncGenerator<string> {
  let id = completionId('', ctx);
  const created = Math.floor(Date.now() / 1000);
  const model = ctx.requestedModel;
  let started = false;
  /** Canonical block index → OpenAI tool-call index, for tool blocks only. */
  const toolIndex = new Map<number, number>();

  const chunk = (delta: Delta, finish: FinishReason | null = null): string =>
    line({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(opts.includeUsage ? { usage: null } : {}),
    });
  // A stream should open with `start`; if it does not, the role chunk still goes first.
  const opening = (): string[] => {
    if (started) return [];
    started = true;
    return [chunk({ role: 'assistant', content: '' })];
  };

  for await (const ev of events) {
    switch (ev.type) {
      case 'start':
        if (!started) id = completionId(ev.id, ctx);
        yield* opening();
        break;
      case 'block_start':
        yield* opening();
        if (ev.block.type === 'tool_call') {
          const k = toolIndex.size;
          toolIndex.set(ev.index, k);
          yield chunk({
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
        yield* opening();
        if (ev.text !== '') yield chunk({ content: ev.text });
        break;
      case 'thinking_delta':
        yield* opening();
        if (ev.text !== '') yield chunk({ reasoning_content: ev.text });
        break;
      case 'tool_args_delta': {
        const k = toolIndex.get(ev.index);
        if (k !== undefined && ev.json !== '')
          yield chunk({ tool_calls: [{ index: k, function: { arguments: ev.json } }] });
        break;
      }
      case 'stop':
        yield* opening();
        yield chunk({}, finishReason(ev.stopReason));
        if (opts.includeUsage)
          yield line({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [],
            usage: toOpenAIUsage(ev.usage),
          });
        yield formatSse({ data: '[DONE]' });
        return;
      case 'error':
        yield line(encodeError(ev.error).body);
        return;
      default:
        // signatures of thinking and block stops have no Chat Completions form.
        break;
    }
  }
  // The provider ended without `stop` or `error`: tell the client rather than fake a finish.
  const err = new GatewayError(
    'upstream_error',
    'Upstream error: the upstream closed the stream before it was complete.',
    { code: 'upstream_stream_incomplete' },
  );
  yield line(encodeError(err).body);
}
