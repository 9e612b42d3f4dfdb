import type { CanonicalResponse, ContentBlock, StopReason } from '../../core/canonical.js';
import { GatewayError, upstreamMalformed } from '../../core/errors.js';
import { fromAnthropicUsage } from './usage.js';
import { isObject, str } from '../../core/json.js';

const STOP_REASONS = new Map<string, StopReason>([
  ['end_turn', 'end_turn'],
  ['max_tokens', 'max_tokens'],
  ['stop_sequence', 'stop_sequence'],
  ['tool_use', 'tool_use'],
  ['pause_turn', 'pause_turn'],
  ['refusal', 'refusal'],
  ['model_context_window_exceeded', 'context_exceeded'],
]);

/** Messages `stop_reason` → canonical; a missing or unknown reason reads as a normal end. */
export function fromAnthropicStopReason(v: unknown): StopReason {
  return (typeof v === 'string' ? STOP_REASONS.get(v) : undefined) ?? 'end_turn';
}

/**
 * One response content block → canonical. Server-tool blocks (`server_tool_use`,
 * `web_search_tool_result`, …) have no canonical form: they only matter to a client that speaks
 * Messages itself, and that client takes the pass-through path.
 */
export function fromAnthropicBlock(b: unknown): ContentBlock | undefined {
  if (!isObject(b)) return undefined;
  switch (b.type) {
    case 'text':
      return Array.isArray(b.citations)
        ? { type: 'text', text: str(b.text), citations: b.citations }
        : { type: 'text', text: str(b.text) };
    case 'thinking':
      return b.signature
        ? { type: 'thinking', text: str(b.thinking), signature: str(b.signature), family: 'anthropic' }
        : { type: 'thinking', text: str(b.thinking), family: 'anthropic' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: str(b.data), family: 'anthropic' };
    case 'tool_use':
      return { type: 'tool_call', id: str(b.id), name: str(b.name), input: isObject(b.input) ? b.input : {} };
    default:
      return undefined;
  }
}

/** A Messages response body → canonical, with usage normalised (usage.ts). */
export function fromResponse(body: unknown): CanonicalResponse {
  if (isObject(body) && body.type === 'error') {
    // Some Anthropic-compatible upstreams report failures with a 200 and an error body.
    const err = isObject(body.error) ? body.error : {};
    throw new GatewayError(
      'upstream_error',
      `Upstream error (${str(err.type) || 'api_error'})${str(err.message) ? `: ${str(err.message).slice(0, 500)}` : ''}`,
      { code: 'upstream_error' },
    );
  }
  if (!isObject(body) || !Array.isArray(body.content)) {
    throw upstreamMalformed('the upstream sent a body that is not a Messages response.');
  }
  const res: CanonicalResponse = {
    id: str(body.id),
    model: str(body.model),
    content: body.content.flatMap((b) => fromAnthropicBlock(b) ?? []),
    stopReason: fromAnthropicStopReason(body.stop_reason),
    usage: fromAnthropicUsage(body.usage),
  };
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (!isObject(body.usage)) res.usageEstimated = true;
  if (typeof body.stop_sequence === 'string') res.stopSequence = body.stop_sequence;
  return res;
}
