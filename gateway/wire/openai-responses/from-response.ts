/**
 * An OpenAI Responses `response` object → canonical.
 *
 * - Each `output_text` part is a text block, with its message's `phase`; a `refusal` part is what
 *   the model said, so it is a text block too and the stop reason becomes `refusal`.
 * - A `compaction` item (server-side compaction asked for with `context_management`) is a
 *   compaction block.
 * - A `function_call` item is a tool call whose id is the `call_id` (what the output must name),
 *   not the item id. Arguments that are not a JSON object are kept as `{_raw}`, as for chat.
 * - A `reasoning` item is a thinking block of family 'openai': summary texts joined with "\n\n"
 *   (or the raw `reasoning_text` of models that show it), and `encrypted_content` as the
 *   signature, which is what must go back on the next turn. One with neither is dropped.
 * - Hosted-tool items (web_search_call…) are not asked for by Tollgate and are skipped.
 * - `incomplete` is max_tokens unless the reason is content_filter; any tool call makes a
 *   completed answer `tool_use`.
 */
import type { CanonicalResponse, ContentBlock, Phase, StopReason, ThinkingBlock } from '../../core/canonical.js';
import { GatewayError, upstreamMalformed } from '../../core/errors.js';
import { isObject as isObj, type JsonObject as Obj, str } from '../../core/json.js';
import { emptyUsage } from '../../core/usage.js';
import { parseArguments } from '../openai-chat/from-response.js';
import { fromResponsesUsage } from './usage.js';

const OVERLOADED = new Set(['server_is_overloaded', 'slow_down']);

/** A `response.error` (or a stream `error` event's fields) as a GatewayError; an overloaded upstream is a 503 to the client. */
export function upstreamReported(error: unknown, inStream: boolean): GatewayError {
  const e = isObj(error) ? error : {};
  const message = typeof e.message === 'string' ? e.message : typeof error === 'string' ? error : 'unknown error';
  const code = typeof e.code === 'string' ? e.code : '';
  const detail = `Upstream error${inStream ? ' during the stream' : ''}${code ? ` (${code})` : ''}: ${message.slice(0, 500)}`;
  if (OVERLOADED.has(code)) return new GatewayError('upstream_unavailable', detail, { code: 'upstream_unavailable' });
  return new GatewayError('upstream_error', detail, { code: inStream ? 'upstream_stream_error' : 'upstream_error' });
}

export function stopReasonOf(
  status: unknown,
  incompleteReason: unknown,
  hadToolCalls: boolean,
  refused: boolean,
): StopReason {
  if (status === 'incomplete') return incompleteReason === 'content_filter' ? 'refusal' : 'max_tokens';
  if (refused) return 'refusal';
  return hadToolCalls ? 'tool_use' : 'end_turn';
}

export function partsText(parts: unknown, kind: string): string {
  if (!Array.isArray(parts)) return '';
  return parts.flatMap((p) => (isObj(p) && p.type === kind && typeof p.text === 'string' ? [p.text] : [])).join('\n\n');
}

export function thinkingOf(item: Obj): ThinkingBlock | undefined {
  const text = partsText(item.summary, 'summary_text') || partsText(item.content, 'reasoning_text');
  const signature =
    typeof item.encrypted_content === 'string' && item.encrypted_content !== '' ? item.encrypted_content : undefined;
  if (text === '' && signature === undefined) return undefined;
  return signature === undefined
    ? { type: 'thinking', text, family: 'openai' }
    : { type: 'thinking', text, signature, family: 'openai' };
}

/** A message item's phase, where it has one. */
export function phaseOf(item: Obj): { phase?: Phase } {
  return item.phase === 'commentary' || item.phase === 'final_answer' ? { phase: item.phase } : {};
}

export function fromResponse(body: unknown): CanonicalResponse {
  if (!isObj(body)) throw upstreamMalformed('the upstream answer is not a JSON object.');
  if (body.error !== undefined && body.error !== null) throw upstreamReported(body.error, false);
  if (body.status === 'failed') throw upstreamReported('the upstream reported the response as failed', false);
  if (!Array.isArray(body.output)) throw upstreamMalformed('the upstream answer has no output array.');
  const content: ContentBlock[] = [];
  let refused = false;
  let calls = 0;
  for (const item of body.output) {
    if (!isObj(item)) continue;
    if (item.type === 'message' && Array.isArray(item.content)) {
      const phase = phaseOf(item);
      for (const p of item.content) {
        if (isObj(p) && p.type === 'output_text' && typeof p.text === 'string')
          content.push({ type: 'text', text: p.text, ...phase });
        else if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string') {
          refused = true;
          content.push({ type: 'text', text: p.refusal, ...phase });
        }
      }
    } else if ((item.type === 'compaction' || item.type === 'compaction_summary') && str(item.encrypted_content)) {
      content.push({
        type: 'compaction',
        data: str(item.encrypted_content),
        ...(str(item.id) ? { id: str(item.id) } : {}),
        family: 'openai',
      });
    } else if (item.type === 'function_call' && typeof item.name === 'string') {
      const id =
        typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : `call_${calls}`;
      content.push({
        type: 'tool_call',
        id,
        name: item.name,
        input: parseArguments(typeof item.arguments === 'string' ? item.arguments : ''),
      });
      calls++;
    } else if (item.type === 'reasoning') {
      const block = thinkingOf(item);
      if (block) content.push(block);
    }
  }
  const details = isObj(body.incomplete_details) ? body.incomplete_details : {};
  const res: CanonicalResponse = {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    content,
    stopReason: stopReasonOf(body.status, details.reason, calls > 0, refused),
    // Some compatible servers omit usage; the caller then counts it.
    usage: isObj(body.usage) ? fromResponsesUsage(body.usage) : emptyUsage(),
  };
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (!isObj(body.usage)) res.usageEstimated = true;
  return res;
}
