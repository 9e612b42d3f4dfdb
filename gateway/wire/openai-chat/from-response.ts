/**
 * An OpenAI-compatible `chat.completion` body → canonical.
 *
 * - `reasoning_content` (DeepSeek, Kimi, vLLM; `reasoning` on OpenRouter and newer vLLM) is not
 *   part of the OpenAI API but is the model's visible reasoning: a thinking block of family
 *   'openai-chat' (unsigned text, which DeepSeek and Kimi want back on tool-call turns), first.
 * - `refusal` is what the model said, so it becomes text; the stop reason is then `refusal`.
 * - Tool arguments that are not a JSON object (a call cut off by the token limit, usually) are kept
 *   as `{_raw: "<the text>"}` rather than failing the whole answer; the client's tool sees them.
 * - Some compatible servers finish a tool-calling turn with `stop`: any tool call makes it `tool_use`,
 *   which Anthropic clients need in order to run the tools.
 */
import type { CanonicalResponse, ContentBlock, StopReason } from '../../core/canonical.js';
import { GatewayError, upstreamMalformed } from '../../core/errors.js';
import { emptyUsage } from '../../core/usage.js';
import { fromOpenAIUsage, type OpenAIUsage } from './usage.js';
import { isObject as isObj } from '../../core/json.js';

type Obj = Record<string, unknown>;

/** The upstream's `{error:{message}}` (or `{error:"…"}`) in a 200 answer or a stream, as a GatewayError. */
export function upstreamReported(error: unknown, inStream: boolean): GatewayError {
  const message =
    typeof error === 'string'
      ? error
      : isObj(error) && typeof error.message === 'string'
        ? error.message
        : 'unknown error';
  return inStream
    ? new GatewayError('upstream_error', `Upstream error during the stream: ${message}`, {
        code: 'upstream_stream_error',
      })
    : new GatewayError('upstream_error', `Upstream error: ${message}`, { code: 'upstream_error' });
}

/** finish_reason → canonical. `function_call` is the legacy name of `tool_calls`. */
export function stopReasonOf(finish: unknown, hadToolCalls: boolean, refused: boolean): StopReason {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'content_filter' || refused) return 'refusal';
  if (finish === 'tool_calls' || finish === 'function_call' || hadToolCalls) return 'tool_use';
  return 'end_turn';
}

export function parseArguments(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (isObj(parsed)) return parsed;
  } catch {
    // kept raw below
  }
  return { _raw: args };
}

/** Non-standard reasoning text some compatible servers add next to `content`. */
export function reasoningOf(m: Obj): string {
  if (typeof m.reasoning_content === 'string') return m.reasoning_content;
  return typeof m.reasoning === 'string' ? m.reasoning : '';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

export function fromResponse(body: unknown): CanonicalResponse {
  if (!isObj(body)) throw upstreamMalformed('the upstream answer is not a JSON object.');
  if (body.error !== undefined && body.error !== null) throw upstreamReported(body.error, false);
  const choice = Array.isArray(body.choices) ? body.choices.find((c) => isObj(c) && (c.index ?? 0) === 0) : undefined;
  if (!isObj(choice) || !isObj(choice.message))
    throw upstreamMalformed('the upstream answer has no choices[0].message.');
  const m = choice.message;
  const content: ContentBlock[] = [];
  const reasoning = reasoningOf(m);
  if (reasoning !== '') content.push({ type: 'thinking', text: reasoning, family: 'openai-chat' });
  const text = textOf(m.content);
  if (text !== '') content.push({ type: 'text', text });
  const refused = typeof m.refusal === 'string' && m.refusal !== '';
  if (refused) content.push({ type: 'text', text: m.refusal as string });
  let calls = 0;
  for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    if (!isObj(c) || !isObj(c.function) || typeof c.function.name !== 'string') continue;
    const args = typeof c.function.arguments === 'string' ? c.function.arguments : '';
    content.push({
      type: 'tool_call',
      id: typeof c.id === 'string' ? c.id : `call_${calls}`,
      name: c.function.name,
      input: parseArguments(args),
    });
    calls++;
  }
  const res: CanonicalResponse = {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    content,
    stopReason: stopReasonOf(choice.finish_reason, calls > 0, refused),
    // Some compatible servers omit usage; the caller then counts it.
    usage: isObj(body.usage) ? fromOpenAIUsage(body.usage as OpenAIUsage) : emptyUsage(),
  };
  // Set, not spread in: a spread in an object literal is V8's slow path in Node 20.
  if (!isObj(body.usage)) res.usageEstimated = true;
  return res;
}
