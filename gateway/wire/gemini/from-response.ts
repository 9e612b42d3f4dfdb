/**
 * A Gemini `GenerateContentResponse` → canonical.
 *
 * - Thought parts (`thought:true`) become one thinking block of family 'gemini' (adjacent ones
 *   joined, the signature kept); adjacent text parts become one text block. A thoughtSignature on
 *   a plain text part is dropped: Gemini only checks the ones on function calls.
 * - Function calls arrive whole. Older models send no `id`, so one is made up, deterministic per
 *   response and unique across the conversation: `call_<responseId>_<k>` (a hash of the parts
 *   stands in for a missing responseId; Anthropic ids must match `^[a-zA-Z0-9_-]+$`). The call's
 *   thoughtSignature goes with it.
 * - Gemini ends a tool-calling turn with STOP (docs/protocols.md §6.5): a function call makes it
 *   `tool_use`. Blocked prompts (`promptFeedback.blockReason`) and safety-type finishes are
 *   `refusal`; a malformed function call is an upstream error, since there is nothing to run.
 */
import { createHash } from 'node:crypto';
import type { CanonicalResponse, ContentBlock, StopReason } from '../../core/canonical.js';
import { GatewayError, upstreamMalformed } from '../../core/errors.js';
import { isObject, str } from '../../core/json.js';
import { emptyUsage } from '../../core/usage.js';
import { fromError } from './from-error.js';
import { fromGeminiUsage } from './usage.js';
import { isFilesApiUri } from './types.js';

const REFUSALS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'LANGUAGE',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);
const BAD_CALLS = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL']);

/** Gemini's `{error:{code, message, status}}`, in a 200 body or a stream chunk, mapped by its code like an HTTP error. */
export function upstreamReported(error: unknown, inStream: boolean): GatewayError {
  const e = isObject(error) ? error : {};
  const code = typeof e.code === 'number' && e.code >= 400 && e.code < 600 ? e.code : 500;
  const message = str(e.message) || str(e.status) || 'unknown error';
  return fromError(code, { error: { ...e, message: inStream ? `during the stream: ${message}` : message } });
}

/** The function call was malformed (Gemini could not parse what the model wrote): no call to run. */
export function badCallError(finish: string, detail: unknown): GatewayError | undefined {
  if (!BAD_CALLS.has(finish)) return undefined;
  const more = str(detail) ? `: ${str(detail).slice(0, 500)}` : '';
  return new GatewayError(
    'upstream_error',
    `Upstream error: the model produced an invalid function call (${finish})${more}`,
    { code: 'upstream_malformed_function_call' },
  );
}

export function stopReasonOf(finish: string, hadCalls: boolean): StopReason {
  if (finish === 'MAX_TOKENS') return 'max_tokens';
  if (REFUSALS.has(finish)) return 'refusal';
  return hadCalls ? 'tool_use' : 'end_turn';
}

/** What made-up call ids are built on: the response id, or a hash of `fallback` when there is none. */
export function idSeed(responseId: unknown, fallback: string): string {
  const id = str(responseId).replace(/[^a-zA-Z0-9_-]/g, '_');
  return id || createHash('sha256').update(fallback).digest('hex').slice(0, 16);
}

export const madeUpCallId = (seed: string, k: number): string => `call_${seed}_${k}`;

/** An inlineData or fileData part → an image or document block. */
export function mediaBlock(p: Record<string, unknown>): ContentBlock | undefined {
  if (isObject(p.inlineData)) {
    const mediaType = str(p.inlineData.mimeType);
    const source = { kind: 'base64' as const, mediaType, data: str(p.inlineData.data) };
    return mediaType.startsWith('image/') ? { type: 'image', source } : { type: 'document', source };
  }
  if (isObject(p.fileData)) {
    const uri = str(p.fileData.fileUri);
    const source = isFilesApiUri(uri) ? { kind: 'file' as const, fileId: uri } : { kind: 'url' as const, url: uri };
    return str(p.fileData.mimeType).startsWith('image/') ? { type: 'image', source } : { type: 'document', source };
  }
  return undefined;
}

function blocks(parts: unknown[], seed: string): ContentBlock[] {
  const out: ContentBlock[] = [];
  let calls = 0;
  for (const p of parts) {
    if (!isObject(p)) continue;
    const last = out.at(-1);
    const signature = str(p.thoughtSignature);
    if (isObject(p.functionCall)) {
      const fc = p.functionCall;
      const id = str(fc.id) || madeUpCallId(seed, calls);
      calls++;
      out.push({
        type: 'tool_call',
        id,
        name: str(fc.name),
        input: isObject(fc.args) ? fc.args : {},
        ...(signature ? { signature, signatureFamily: 'gemini' as const } : {}),
      });
    } else if (typeof p.text === 'string' && p.thought === true) {
      if (last?.type === 'thinking') last.text += p.text;
      else out.push({ type: 'thinking', text: p.text, family: 'gemini' });
      if (signature) (out.at(-1) as Extract<ContentBlock, { type: 'thinking' }>).signature = signature;
    } else if (typeof p.text === 'string') {
      if (p.text === '') continue;
      if (last?.type === 'text') last.text += p.text;
      else out.push({ type: 'text', text: p.text });
    } else {
      // executableCode / codeExecutionResult come only from Google's code tool, which Tollgate never enables.
      const media = mediaBlock(p);
      if (media) out.push(media);
    }
  }
  return out;
}

export function fromResponse(body: unknown): CanonicalResponse {
  if (!isObject(body)) throw upstreamMalformed('the upstream answer is not a JSON object.');
  if (body.error !== undefined && body.error !== null) throw upstreamReported(body.error, false);
  const candidates: unknown[] = Array.isArray(body.candidates) ? body.candidates : [];
  const candidate = candidates.find((c) => isObject(c) && (c.index ?? 0) === 0) ?? candidates[0];
  const blocked = isObject(body.promptFeedback) && typeof body.promptFeedback.blockReason === 'string';
  if (!isObject(candidate) && !blocked) throw upstreamMalformed('the upstream answer has no candidates.');
  const c = isObject(candidate) ? candidate : {};
  const finish = str(c.finishReason);
  const bad = badCallError(finish, c.finishMessage);
  if (bad) throw bad;
  const parts: unknown[] = isObject(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
  // The parts are serialised for the seed only when there is no response id to build on (Gemini sends one).
  const content = blocks(parts, idSeed(body.responseId, str(body.responseId) === '' ? JSON.stringify(parts) : ''));
  const hadCalls = content.some((b) => b.type === 'tool_call');
  const res: CanonicalResponse = {
    id: str(body.responseId),
    model: str(body.modelVersion),
    content,
    stopReason: blocked ? 'refusal' : stopReasonOf(finish, hadCalls),
    usage: isObject(body.usageMetadata) ? fromGeminiUsage(body.usageMetadata) : emptyUsage(),
  };
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (!isObject(body.usageMetadata)) res.usageEstimated = true;
  return res;
}
