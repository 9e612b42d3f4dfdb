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
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
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
 * The output limit in one field, the one the line takes (its `maxTokensField` quirk, else
 * `max_tokens`), with the limit billing reserved for (routes.ts: `max_completion_tokens` first, or
 * Tollgate's own when the client set none); the other field is taken out. Sent both, an upstream
 * refuses the request or honours the one billing did not read. A client's single field on a line
 * without the quirk goes as it came.
 */
function limitField(
  body: ChatBody,
  quirks: Quirks | undefined,
  outputLimit: number | undefined,
): Record<string, unknown> {
  const completion = typeof body.max_completion_tokens === 'number';
  const tokens = typeof body.max_tokens === 'number';
  const field = quirks?.maxTokensField;
  if (outputLimit === undefined && !(completion && tokens)) {
    const own = completion ? 'max_completion_tokens' : tokens ? 'max_tokens' : undefined;
    if (own === undefined || field === undefined || field === own) return {};
  }
  const limit = outputLimit ?? body.max_completion_tokens ?? body.max_tokens;
  const target = field ?? 'max_tokens';
  const other = target === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
  return { [target]: limit, ...(body[other] !== undefined ? { [other]: undefined } : {}) };
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
      const changes: Record<string, unknown> = { model: upstreamModel, ...limitField(body, quirks, outputLimit) };
      if (stream) {
        // A copy, then the field set: a spread followed by properties is V8's slow path (relay/respond.ts answerHeaders).
        const options: Record<string, unknown> = { ...(body.stream_options ?? {}) };
        options.include_usage = true;
        changes.stream_options = options;
      }
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
