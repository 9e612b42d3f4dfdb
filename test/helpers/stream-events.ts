/**
 * Canonical event sequences with something of everything a client stream encoder writes: text that JSON has to
 * escape, reasoning of two families with their signatures, redacted thinking, tool calls (one signed by Gemini,
 * one not) with their argument fragments, empty deltas, the final usage; and the ways a stream ends early (an error
 * after content, a cut before the stop, events after the stop, nothing at all). The stream-writer tests of the
 * encoders compare what each writes for them with fixed bytes.
 */
import type { StreamEvent } from '../../gateway/core/canonical.js';
import type { StreamWriter } from '../../gateway/core/codec.js';
import { GatewayError } from '../../gateway/core/errors.js';
import { emptyUsage } from '../../gateway/core/usage.js';

/** Text that JSON has to escape: quotes, backslashes, line ends of every kind, a control character, and non-ASCII. */
export const awkward = 'say "hi"\\n\r\n\u2028\u2029\u0007 – ✓ 😀';

export const richStream: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'up', usage: { ...emptyUsage(), inputTokens: 20 } },
  { type: 'block_start', index: 0, block: { type: 'thinking', family: 'anthropic' } },
  { type: 'thinking_delta', index: 0, text: awkward },
  { type: 'thinking_delta', index: 0, text: '' },
  { type: 'signature_delta', index: 0, signature: 'sig-a' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'thinking', family: 'gemini' } },
  { type: 'thinking_delta', index: 1, text: 'plan' },
  { type: 'signature_delta', index: 1, signature: 'sig-g' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'redacted_thinking', data: 'opaque', family: 'anthropic' } },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'text' } },
  { type: 'text_delta', index: 3, text: awkward },
  { type: 'text_delta', index: 3, text: '' },
  { type: 'text_delta', index: 3, text: 'plain' },
  { type: 'block_stop', index: 3 },
  { type: 'block_start', index: 4, block: { type: 'tool_call', id: 'call_"x"', name: 'weather' } },
  { type: 'tool_args_delta', index: 4, json: '{"city":' },
  { type: 'tool_args_delta', index: 4, json: '' },
  { type: 'tool_args_delta', index: 4, json: '"Zürich \\"old\\" town"}' },
  { type: 'block_stop', index: 4 },
  {
    type: 'block_start',
    index: 5,
    block: { type: 'tool_call', id: 'call_2', name: 'read', signature: 'CiSig', signatureFamily: 'gemini' },
  },
  { type: 'tool_args_delta', index: 5, json: '{}' },
  { type: 'block_stop', index: 5 },
  {
    type: 'stop',
    stopReason: 'tool_use',
    usage: { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 5, outputTokens: 9, reasoningTokens: 3 },
  },
];

/** Events after the stop, which no encoder reads. */
export const afterStop: StreamEvent[] = [...richStream, { type: 'text_delta', index: 3, text: 'late' }];

/** An upstream failure after text and a call's first fragment. */
export const failedStream: StreamEvent[] = [
  ...richStream.slice(0, 20),
  {
    type: 'error',
    error: new GatewayError('upstream_unavailable', 'Upstream unavailable (HTTP 503)', { retryAfter: 2 }),
  },
];

/** Cut after text, with a call open: no stop and no error. */
export const cutStream: StreamEvent[] = richStream.slice(0, 19);

/** A stream with no `start`, that stops at once. */
export const bareStop: StreamEvent[] = [{ type: 'stop', stopReason: 'max_tokens', usage: emptyUsage() }];

/** The sequences above by name, and a stream with no events at all; `afterStop` is left to the tests that want it. */
export const namedStreams: [string, StreamEvent[]][] = [
  ['richStream', richStream],
  ['failedStream', failedStream],
  ['cutStream', cutStream],
  ['bareStop', bareStop],
  ['none', []],
];

/** The items as an async stream, as the relay hands events to an encoder. */
export async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** Every string an async stream gives, in order. */
export async function collect(gen: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const s of gen) out.push(s);
  return out;
}

/** What a writer gives for `list`, chunk by chunk, fed as the relay feeds it: each event's text, then `end`'s unless the stream was done. */
export function pushed(w: StreamWriter, list: readonly StreamEvent[]): string[] {
  const out: string[] = [];
  for (const ev of list) {
    const s = w.push(ev);
    if (s !== undefined) out.push(s);
    if (w.done) return out;
  }
  const last = w.end();
  if (last !== undefined) out.push(last);
  return out;
}

/** Server-sent events, one `data:` event for each text. */
export function sse(...data: string[]): string {
  return data.map((d) => `data: ${d}\n\n`).join('');
}
