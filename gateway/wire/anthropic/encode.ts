import type { CanonicalResponse, ContentBlock, StopReason, ThinkingBlock } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { mark, markThinking } from '../../core/reasoning.js';
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
  if (u.cacheWrite1hTokens > 0)
    wire.cache_creation = {
      ephemeral_5m_input_tokens: u.cacheWriteTokens,
      ephemeral_1h_input_tokens: u.cacheWrite1hTokens,
    };
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
 * The signature a thinking block goes out with: Anthropic's own, or for another family's reasoning
 * Tollgate's mark (core/reasoning.ts), which the client resends verbatim and Tollgate reads back,
 * so the reasoning returns to its family and never reaches Anthropic (docs/protocols.md §6.6).
 */
export function thinkingSignature(b: { family?: ThinkingBlock['family']; signature?: string }): string {
  return b.family === 'anthropic' && b.signature ? b.signature : markThinking({ type: 'thinking', text: '', ...b });
}

/**
 * A tool call's own signature (Gemini's) has no place on tool_use: it rides in an empty thinking
 * block put before the call, which the client keeps with the turn.
 */
export function callCarrier(id: string, signature: string, family: ThinkingBlock['family']): Record<string, unknown> {
  return {
    type: 'thinking',
    thinking: '',
    signature: mark({ kind: 'call', family: family ?? 'gemini', callId: anthropicToolId(id), signature }),
  };
}

/**
 * One assistant content block (two for a signed tool call). Images, documents and tool results
 * never come out of a model in Messages, so an answer that holds them (an image-generating
 * upstream) loses them here.
 */
function blocks(b: ContentBlock): Record<string, unknown>[] {
  switch (b.type) {
    case 'text':
      return [b.citations ? { type: 'text', text: b.text, citations: b.citations } : { type: 'text', text: b.text }];
    case 'thinking':
      return [{ type: 'thinking', thinking: b.text, signature: thinkingSignature(b) }];
    case 'redacted_thinking':
      // Only Anthropic makes redacted thinking.
      return b.family === undefined || b.family === 'anthropic' ? [{ type: 'redacted_thinking', data: b.data }] : [];
    case 'tool_call': {
      const use = { type: 'tool_use', id: anthropicToolId(b.id), name: b.name, input: b.input };
      return b.signature ? [callCarrier(b.id, b.signature, b.signatureFamily), use] : [use];
    }
    default:
      return [];
  }
}

export function encodeResponse(res: CanonicalResponse, ctx: EncodeContext): MessagesResponse {
  return {
    id: messageId(res.id, ctx),
    type: 'message',
    role: 'assistant',
    model: ctx.requestedModel,
    content: res.content.flatMap(blocks),
    stop_reason: toMessagesStopReason(res.stopReason),
    stop_sequence: res.stopSequence ?? null,
    usage: toMessagesUsage(res.usage),
  };
}
