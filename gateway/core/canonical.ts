/**
 * The canonical model: one request / response / stream-event shape that every format's client side
 * decodes into and every upstream side encodes from. It is the union of what the wire formats can
 * carry, so no translator needs to know another wire format. A field that one format has and
 * another lacks lives here and is dropped only by the encoder that cannot express it.
 */
import type { GatewayError } from './errors.js';
import type { Usage } from './usage.js';

/** Prompt-cache breakpoint (Anthropic `cache_control`). Encoders without the concept drop it. */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export type MediaSource =
  { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string } | { kind: 'file'; fileId: string };

/**
 * OpenAI Responses labels an assistant message as intermediate commentary or the final answer;
 * models from GPT-5.3-codex on want it back on every assistant message. Only Responses has it.
 */
export type Phase = 'commentary' | 'final_answer';

export interface TextBlock {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
  /** Anthropic citations, carried opaquely between Anthropic endpoints. */
  citations?: unknown[];
  /** The phase of the Responses assistant message this text belongs to. */
  phase?: Phase;
}

export interface ImageBlock {
  type: 'image';
  source: MediaSource;
  /** OpenAI / Responses `detail`. */
  detail?: 'auto' | 'low' | 'high';
  cacheControl?: CacheControl;
}

export interface DocumentBlock {
  type: 'document';
  source: MediaSource | { kind: 'text'; mediaType: string; data: string };
  title?: string;
  cacheControl?: CacheControl;
}

/**
 * Which wire family produced a thinking block or signature, i.e. which upstreams can take it
 * back: `anthropic` (signed thinking), `openai` (Responses reasoning with `encrypted_content`),
 * `gemini` (thought signatures), `openai-chat` (the unsigned `reasoning_content` text of
 * DeepSeek, Kimi, Qwen…). Signatures only verify within the family that made them, so upstream
 * sides of another family drop them (and say so in the log); core/reasoning.ts carries them
 * through clients of another format.
 */
export type ProviderFamily = 'anthropic' | 'openai' | 'gemini' | 'openai-chat';

export interface ThinkingBlock {
  type: 'thinking';
  text: string;
  signature?: string;
  family?: ProviderFamily;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  family?: ProviderFamily;
}

export interface ToolCallBlock {
  type: 'tool_call';
  /** Stable across the conversation: passed through where the target allows it, else mapped. */
  id: string;
  name: string;
  /** Parsed arguments; `{}` when the model sent none. */
  input: Record<string, unknown>;
  /** Gemini thought signature attached to the call part. */
  signature?: string;
  signatureFamily?: ProviderFamily;
  cacheControl?: CacheControl;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolCallId: string;
  /** Known when the protocol carries it (Gemini needs it; others can look it up by id). */
  name?: string;
  content: (TextBlock | ImageBlock | DocumentBlock)[];
  isError?: boolean;
  cacheControl?: CacheControl;
}

/**
 * OpenAI Responses' compaction item: the conversation before it, compacted into content only
 * OpenAI can read (`/v1/responses/compact`, or `context_management`). Only a Responses upstream
 * takes it back; any other leaves it out, and with it the history it stands for.
 */
export interface CompactionBlock {
  type: 'compaction';
  /** The item's `encrypted_content`. */
  data: string;
  id?: string;
  family: 'openai';
}

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolCallBlock
  | ToolResultBlock
  | CompactionBlock;

export interface CanonicalMessage {
  /**
   * `system` appears here only where a client put a system message between turns (Claude Code's
   * mid-conversation system messages, OpenAI `system`/`developer` messages after the first turn);
   * leading system text goes to CanonicalRequest.system.
   */
  role: 'user' | 'assistant' | 'system';
  content: ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
}

export type ToolChoice =
  | { type: 'auto'; disableParallel?: boolean }
  | { type: 'any'; disableParallel?: boolean }
  | { type: 'none' }
  | { type: 'tool'; name: string; disableParallel?: boolean };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export type Thinking = { type: 'enabled'; budgetTokens: number } | { type: 'disabled' } | { type: 'adaptive' };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface CanonicalRequest {
  /** The upstream model id (already mapped by the line). */
  model: string;
  system: TextBlock[];
  messages: CanonicalMessage[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  stream: boolean;
  thinking?: Thinking;
  reasoningEffort?: ReasoningEffort;
  responseFormat?: ResponseFormat;
  /** End-user id for abuse tracking (OpenAI `user`, Anthropic `metadata.user_id`). */
  user?: string;
  /**
   * OpenAI's `prompt_cache_key` (Chat and Responses): which requests share a prompt cache. Sent on
   * to OpenAI Responses upstreams; the others cache by prefix and have no such field.
   */
  promptCacheKey?: string;
  /**
   * A client's `context_management`, whose shape is its family's own (Anthropic's edits, OpenAI
   * Responses' compaction thresholds): sent on only to an upstream of that family.
   */
  contextManagement?: { family: ProviderFamily; value: unknown };
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Notes for the log about what could not be carried (dropped tool kinds, signatures…). */
  notes: string[];
  /**
   * Output the client asked for that the canonical model has no place for (audio, images,
   * logprobs): a translated request is refused with a 400 naming `param`; the pass-through,
   * which carries everything, serves it.
   */
  uncarriedOutputs?: { param: string; what: string }[];
}

export type StopReason =
  'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'pause_turn' | 'context_exceeded';

export interface CanonicalResponse {
  id: string;
  model: string;
  content: ContentBlock[];
  stopReason: StopReason;
  stopSequence?: string;
  usage: Usage;
  /** True when the upstream reported no usage and `usage` holds only what the provider could infer. */
  usageEstimated?: boolean;
}

/** The start of a content block in a stream: what is known before its deltas. */
export type BlockStart =
  | { type: 'text'; phase?: Phase }
  | { type: 'thinking'; /** Who makes the block; its signature arrives as signature_delta. */ family?: ProviderFamily }
  | { type: 'redacted_thinking'; data: string; family?: ProviderFamily }
  | { type: 'tool_call'; id: string; name: string; signature?: string; signatureFamily?: ProviderFamily };

/**
 * Stream events. Providers guarantee what Anthropic's stream requires and the others allow:
 * block indexes start at 0 and are contiguous, only one block is open at a time, and every
 * block_start has its block_stop before the next block_start. Tool arguments arrive as JSON text
 * fragments that concatenate to the whole arguments object.
 */
export type StreamEvent =
  | {
      type: 'start';
      id: string;
      model: string;
      /** Prompt usage known or estimated at the start (Claude Code reads it from message_start). */ usage: Usage;
    }
  | { type: 'block_start'; index: number; block: BlockStart }
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'tool_args_delta'; index: number; json: string }
  | { type: 'thinking_delta'; index: number; text: string }
  | { type: 'signature_delta'; index: number; signature: string }
  | { type: 'block_stop'; index: number }
  /** A compaction item, whole: it is not a block of the answer's content and has no index. */
  | { type: 'compaction'; data: string; id?: string }
  | {
      type: 'stop';
      stopReason: StopReason;
      stopSequence?: string;
      usage: Usage;
      /** No usage came from the upstream. */ usageEstimated?: boolean;
    }
  | { type: 'error'; error: GatewayError };
