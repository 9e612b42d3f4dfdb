import type { CanonicalResponse, ContentBlock, StopReason } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { cacheWriteTokens, type Usage } from '../../core/usage.js';
import { anthropicToolId } from './to-request.js';

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** The cache writes by lifetime (their sum is cache_creation_input_tokens). */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens_details?: { thinking_tokens: number };
}

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Record<string, unknown>[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

/**
 * Canonical usage → Messages usage. `input_tokens` is the uncached prompt only, with cache reads
 * and writes beside it (docs/protocols.md §2); audio and image input split out by other upstreams are
 * uncached prompt too, so they go back into `input_tokens`.
 */
export function toMessagesUsage(u: Usage): MessagesUsage {
  const wire: MessagesUsage = {
    input_tokens: u.inputTokens + u.audioInputTokens + u.imageInputTokens,
    output_tokens: u.outputTokens,
    cache_creation_input_tokens: cacheWriteTokens(u),
    cache_read_input_tokens: u.cacheReadTokens,
  };
  if (u.cacheWrite1hTokens > 0) wire.cache_creation = { ephemeral_5m_input_tokens: u.cacheWriteTokens, ephemeral_1h_input_tokens: u.cacheWrite1hTokens };
  if (u.reasoningTokens > 0) wire.output_tokens_details = { thinking_tokens: u.reasoningTokens };
  return wire;
}

export function toMessagesStopReason(r: StopReason): string {
  return r === 'context_exceeded' ? 'model_context_window_exceeded' : r;
}

/** A `msg_…` id: the upstream's own when it is one, else one made from Tollgate's request id. */
export function messageId(id: string, ctx: EncodeContext): string {
  return id.startsWith('msg_') ? id : `msg_${ctx.requestId.replace(/[^a-zA-Z0-9_-]/g, '')}`;
}

/**
 * One assistant content block. Images, documents and tool results never come out of a model in
 * Messages, so an answer that holds them (an image-generating upstream) loses them here.
 */
function block(b: ContentBlock): Record<string, unknown> | undefined {
  switch (b.type) {
    case 'text':
      return b.citations ? { type: 'text', text: b.text, citations: b.citations } : { type: 'text', text: b.text };
    case 'thinking':
      return { type: 'thinking', thinking: b.text, signature: b.signature ?? '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    case 'tool_call':
      return { type: 'tool_use', id: anthropicToolId(b.id), name: b.name, input: b.input };
    default:
      return undefined;
  }
}

export function encodeResponse(res: CanonicalResponse, ctx: EncodeContext): MessagesResponse {
  return {
    id: messageId(res.id, ctx),
    type: 'message',
    role: 'assistant',
    model: ctx.requestedModel,
    content: res.content.flatMap((b) => {
      const wire = block(b);
      return wire ? [wire] : [];
    }),
    stop_reason: toMessagesStopReason(res.stopReason),
    stop_sequence: res.stopSequence ?? null,
    usage: toMessagesUsage(res.usage),
  };
}
