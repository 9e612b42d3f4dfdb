/**
 * Canonical answer → a Gemini `GenerateContentResponse` (docs/protocols.md §4).
 *
 * - Thinking → `{text, thought:true}` parts; text → `{text}`; tool calls → `{functionCall:{id,
 *   name, args}}` (the canonical id goes out, and Gemini clients send it back on the
 *   functionResponse). Gemini's own signatures go where Gemini put them. Another family's
 *   reasoning cannot ride on thought parts, which Gemini CLI leaves out of its history: its thought
 *   parts are for reading only, and the blocks themselves (text, signature, family) go under
 *   Tollgate's mark (core/reasoning.ts) in the `thoughtSignature` of the turn's first function
 *   call, which every Gemini client keeps and resends (docs/protocols.md §6.6). A turn without a
 *   call needs none of it later.
 * - Gemini has no tool-call finish reason: a turn that calls tools ends with STOP, and so does a
 *   matched stop sequence. Refusals are SAFETY; a full context is MAX_TOKENS.
 * - `modelVersion` is the model the client asked for; `responseId` is Tollgate's request id, so a
 *   client can quote it against the log.
 */
import type { CanonicalResponse, ContentBlock, StopReason } from '../../core/canonical.js';
import type { EncodeContext } from '../../core/codec.js';
import { mark, type CarriedBlock } from '../../core/reasoning.js';
import { cacheWriteTokens, type Usage } from '../../core/usage.js';
import type { GeminiPart, GeminiResponse, GeminiUsage } from './types.js';

const FINISH: Record<StopReason, string> = {
  end_turn: 'STOP',
  stop_sequence: 'STOP',
  tool_use: 'STOP',
  pause_turn: 'STOP',
  max_tokens: 'MAX_TOKENS',
  context_exceeded: 'MAX_TOKENS',
  refusal: 'SAFETY',
};

export function finishReason(r: StopReason): string {
  return FINISH[r];
}

/**
 * Canonical usage in Gemini's shape. Gemini counts cached tokens INSIDE promptTokenCount and
 * thoughts OUTSIDE candidatesTokenCount, so every input bucket is added back (cache writes have no
 * Gemini field and are prompt tokens to a Gemini client) and the reasoning share is taken out of
 * the candidates. Audio and image input, split out by the provider, go back in as modality details.
 */
export function toGeminiUsage(u: Usage): GeminiUsage {
  const text = u.inputTokens + u.cacheReadTokens + cacheWriteTokens(u);
  const prompt = text + u.audioInputTokens + u.imageInputTokens;
  const thoughts = Math.min(u.reasoningTokens, u.outputTokens);
  const wire: GeminiUsage = {
    promptTokenCount: prompt,
    candidatesTokenCount: u.outputTokens - thoughts,
    totalTokenCount: prompt + u.outputTokens,
  };
  if (u.cacheReadTokens > 0) wire.cachedContentTokenCount = u.cacheReadTokens;
  if (thoughts > 0) wire.thoughtsTokenCount = thoughts;
  if (u.audioInputTokens > 0 || u.imageInputTokens > 0) {
    const details = [{ modality: 'TEXT', tokenCount: text }];
    if (u.audioInputTokens > 0) details.push({ modality: 'AUDIO', tokenCount: u.audioInputTokens });
    if (u.imageInputTokens > 0) details.push({ modality: 'IMAGE', tokenCount: u.imageInputTokens });
    wire.promptTokensDetails = details;
  }
  return wire;
}

/** Tool arguments as streamed JSON text → the object Gemini sends; text that is not an object is kept raw, not lost. */
export function argsOf(json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // kept raw below
  }
  return { _raw: json };
}

export function callPart(
  id: string,
  name: string,
  args: Record<string, unknown>,
  signature: string | undefined,
): GeminiPart {
  const part: GeminiPart = { functionCall: { id, name, args } };
  if (signature) part.thoughtSignature = signature;
  return part;
}

/** Another family's reasoning, which Gemini clients can keep only in a function call's thoughtSignature. */
export function foreignReasoning(b: ContentBlock): CarriedBlock | undefined {
  if (b.type === 'thinking' && b.family !== 'gemini')
    return {
      type: 'thinking',
      text: b.text,
      ...(b.signature ? { signature: b.signature } : {}),
      ...(b.family ? { family: b.family } : {}),
    };
  if (b.type === 'redacted_thinking' && b.family !== 'gemini')
    return { type: 'redacted_thinking', data: b.data, ...(b.family ? { family: b.family } : {}) };
  return undefined;
}

/** The thoughtSignature that carries `blocks` on a function call. */
export const bundle = (blocks: CarriedBlock[]): string => mark({ kind: 'bundle', blocks });

/** One content block as a Gemini part; tool results and redacted thinking never come out of a Gemini model. */
function part(b: ContentBlock): GeminiPart | undefined {
  switch (b.type) {
    case 'text':
      return b.text === '' ? undefined : { text: b.text };
    case 'thinking':
      if (b.family === 'gemini' && b.signature) return { text: b.text, thought: true, thoughtSignature: b.signature };
      // An empty thought without Gemini's signature says nothing (another family's proof is bundled).
      return b.text === '' ? undefined : { text: b.text, thought: true };
    case 'tool_call':
      return callPart(b.id, b.name, b.input, b.signatureFamily === 'gemini' ? b.signature : undefined);
    case 'image':
    case 'document': {
      const s = b.source;
      if (s.kind === 'base64') return { inlineData: { mimeType: s.mediaType, data: s.data } };
      if (s.kind === 'text') return { text: s.data };
      return { fileData: { fileUri: s.kind === 'url' ? s.url : s.fileId } };
    }
    default:
      return undefined;
  }
}

/** The answer's parts, another family's reasoning bundled onto the first function call after it. */
function parts(content: ContentBlock[]): GeminiPart[] {
  const out: GeminiPart[] = [];
  let pending: CarriedBlock[] = [];
  for (const b of content) {
    const carried = foreignReasoning(b);
    if (carried) pending.push(carried);
    const p = part(b);
    if (!p) continue;
    if (p.functionCall && pending.length > 0 && !p.thoughtSignature) {
      p.thoughtSignature = bundle(pending);
      pending = [];
    }
    out.push(p);
  }
  return out;
}

export function encodeResponse(res: CanonicalResponse, ctx: EncodeContext): GeminiResponse {
  return {
    candidates: [
      { content: { role: 'model', parts: parts(res.content) }, finishReason: finishReason(res.stopReason), index: 0 },
    ],
    usageMetadata: toGeminiUsage(res.usage),
    modelVersion: ctx.requestedModel,
    responseId: ctx.requestId,
  };
}
