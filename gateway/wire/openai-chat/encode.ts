/**
 * Canonical answer → a `chat.completion` body.
 *
 * - Text blocks are concatenated with no separator, exactly as the streamed deltas would be
 *   (Anthropic splits one cited answer into several adjacent text blocks).
 * - Thinking text goes in `reasoning_content`, the field DeepSeek, Kimi and Qwen use (the openai
 *   SDK keeps it on the message, so a client that resends its messages sends it back; decode.ts
 *   reads it). Signatures have no place there, except Gemini's on a tool call, which goes in
 *   `extra_content.google.thought_signature` as Gemini's own OpenAI-compatible endpoint sends it.
 *   The reasoning tokens show in usage.completion_tokens_details.reasoning_tokens. Image or
 *   document output is dropped.
 * - The id is the upstream's when it is already a `chatcmpl-` id, else `chatcmpl-` + Tollgate's
 *   request id, so a client can quote it against the `x-request-id` in the log.
 */
import type { CanonicalResponse, StopReason, ToolCallBlock } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { cacheWriteTokens, type Usage } from '../../core/usage.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  extra_content?: GeminiExtra;
}

/** Where Gemini's OpenAI-compatible endpoint puts a tool call's thought signature. */
export interface GeminiExtra {
  google: { thought_signature: string };
}

/** A tool call's Gemini signature in its Chat Completions place; other families' have none. */
export function geminiExtra(b: {
  signature?: string;
  signatureFamily?: string;
}): { extra_content: GeminiExtra } | Record<string, never> {
  return b.signature && b.signatureFamily === 'gemini'
    ? { extra_content: { google: { thought_signature: b.signature } } }
    : {};
}

export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      reasoning_content?: string;
      tool_calls?: ChatToolCall[];
    };
    finish_reason: FinishReason;
    logprobs: null;
  }[];
  usage: ChatUsage;
}

/** docs/protocols.md §6.5. OpenAI has no reason for a paused turn or an overflowing context: the nearest ones. */
const FINISH: Record<StopReason, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  context_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReason(r: StopReason): FinishReason {
  return FINISH[r];
}

/**
 * Canonical usage in OpenAI's shape. OpenAI counts cached tokens *inside* prompt_tokens (and
 * audio tokens too), so every input bucket is added back; cache writes have no OpenAI field and are
 * ordinary prompt tokens to an OpenAI client.
 */
export function toOpenAIUsage(u: Usage): ChatUsage {
  const prompt = u.inputTokens + u.cacheReadTokens + cacheWriteTokens(u) + u.audioInputTokens + u.imageInputTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.outputTokens,
    total_tokens: prompt + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens, audio_tokens: u.audioInputTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

export function completionId(id: string, ctx: EncodeContext): string {
  return id.startsWith('chatcmpl-') ? id : `chatcmpl-${ctx.requestId.replace(/^req_/, '')}`;
}

export function toolCallOf(b: ToolCallBlock): ChatToolCall {
  return {
    id: b.id,
    type: 'function',
    function: { name: b.name, arguments: JSON.stringify(b.input) },
    ...geminiExtra(b),
  };
}

export function encodeResponse(res: CanonicalResponse, ctx: EncodeContext): ChatCompletionBody {
  let text = '';
  const thoughts: string[] = [];
  const calls: ChatToolCall[] = [];
  for (const b of res.content) {
    if (b.type === 'text') text += b.text;
    else if (b.type === 'thinking' && b.text !== '') thoughts.push(b.text);
    else if (b.type === 'tool_call') calls.push(toolCallOf(b));
  }
  const message: ChatCompletionBody['choices'][number]['message'] = {
    role: 'assistant',
    // OpenAI sends null content next to tool calls; an empty answer is still a string.
    content: text === '' && calls.length > 0 ? null : text,
    refusal: null,
  };
  if (thoughts.length > 0) message.reasoning_content = thoughts.join('\n\n');
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: completionId(res.id, ctx),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: ctx.requestedModel,
    choices: [{ index: 0, message, finish_reason: finishReason(res.stopReason), logprobs: null }],
    usage: toOpenAIUsage(res.usage),
  };
}
