import { upstreamStreamError } from '../../core/errors.js';
import { assertJsonObjectShape, isObject } from '../../core/json.js';
import { BaseStreamTap, upstreamBody, type Passthrough } from '../../core/passthrough.js';
import type { Quirks } from '../../core/quirks.js';
import type { SseEvent } from '../../core/sse.js';
import { producedByChunk, producedByCompletion } from './produced.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';

export interface ChatBody {
  model: string;
  messages: { content?: unknown }[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  tools?: unknown[];
  [k: string]: unknown;
}

/**
 * Reads a Chat Completions stream as it passes: usage from the final usage chunk (scanned for,
 * not parsed out of every event), `[DONE]`, in-band errors. The usage chunk is dropped when the
 * client did not ask for it: Tollgate asked on its own behalf.
 */
export class ChatStreamTap extends BaseStreamTap {
  private finished = false;
  private readonly chunks: string[] = [];

  constructor(private readonly clientWantsUsage: boolean) {
    super();
  }

  onEvent(ev: SseEvent): boolean {
    const data = ev.data;
    if (data === '[DONE]') {
      this.done = true;
      return true;
    }
    assertJsonObjectShape(data);
    if (data.includes('"usage":{')) {
      const chunk = JSON.parse(data) as { usage: OpenAIUsage; choices?: unknown[] };
      this.found = fromOpenAIUsage(chunk.usage);
      if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return this.clientWantsUsage;
    } else if (data.startsWith('{"error"')) {
      const msg = (JSON.parse(data) as { error?: { message?: string } }).error?.message;
      this.failure = upstreamStreamError(msg);
      return true;
    }
    this.chunks.push(data);
    this.finished ||= data.includes('"finish_reason":"');
    return true;
  }

  override repairTail(): string | undefined {
    // Some compatible servers omit the terminator; a stream that finished and reported usage is whole.
    return this.finished && this.found ? 'data: [DONE]\n\n' : undefined;
  }
  produced(): string {
    let out = '';
    for (const data of this.chunks) {
      try {
        out += producedByChunk(JSON.parse(data) as Parameters<typeof producedByChunk>[0]);
      } catch {
        // A malformed fragment produced nothing countable.
      }
    }
    return out;
  }
}

/**
 * The messages with the vendor's reasoning field on every assistant message that lacks it, for a
 * vendor that refuses a tool-call turn without it (the `reasoningField` quirk, as to-request.ts
 * does): a turn another family made, or whose reasoning the client did not keep, goes with an empty
 * one. For OpenRouter's `reasoning` field, a client's `reasoning_content` (what Tollgate hands chat
 * clients) moves there. Undefined when nothing changes.
 */
function withReasoningField(
  messages: unknown,
  field: NonNullable<Quirks['reasoningField']>,
): { messages: unknown[]; added: number; moved: number } | undefined {
  if (!Array.isArray(messages)) return undefined;
  let added = 0;
  let moved = 0;
  const out = messages.map((m: unknown) => {
    if (!isObject(m) || m.role !== 'assistant' || typeof m[field] === 'string') return m;
    if (field !== 'reasoning_content' && typeof m.reasoning_content === 'string') {
      moved++;
      const { reasoning_content, ...rest } = m;
      return { ...rest, [field]: reasoning_content };
    }
    added++;
    return { ...m, [field]: '' };
  });
  return added + moved > 0 ? { messages: out, added, moved } : undefined;
}

/**
 * OpenAI chat in, `openai-chat` upstream out: `model` is rewritten, stream usage is switched on so
 * every stream can be billed from the upstream's own count, and a line with the reasoningField
 * quirk gets reasoning_content on every assistant message.
 */
export function chatPassthrough(body: ChatBody, rawBody: string): Passthrough {
  const stream = body.stream === true;
  return {
    request(upstreamModel, quirks, outputLimit) {
      const changes: Record<string, unknown> = { model: upstreamModel };
      if (outputLimit !== undefined) changes[quirks?.maxTokensField ?? 'max_tokens'] = outputLimit;
      if (stream) changes.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
      const field = quirks?.reasoningField;
      const reasoning = field ? withReasoningField(body.messages, field) : undefined;
      if (reasoning) changes.messages = reasoning.messages;
      const out = { path: '/chat/completions', headers: {}, body: upstreamBody(rawBody, body, changes) };
      if (!reasoning) return out;
      const notes: string[] = [];
      if (reasoning.added > 0)
        notes.push(
          `openai-chat: empty ${field} put on ${reasoning.added} assistant message(s) without one, as the vendor requires`,
        );
      if (reasoning.moved > 0)
        notes.push(`openai-chat: reasoning_content of ${reasoning.moved} assistant message(s) sent as ${field}`);
      return { ...out, notes };
    },
    tap: () => new ChatStreamTap(body.stream_options?.include_usage === true),
    modelField: { answer: ['model'], event: ['model'] },
    readAnswer(parsed) {
      const p = parsed as { usage?: OpenAIUsage };
      return {
        usage: p.usage ? fromOpenAIUsage(p.usage) : undefined,
        produced: producedByCompletion(parsed as Parameters<typeof producedByCompletion>[0]),
      };
    },
  };
}
