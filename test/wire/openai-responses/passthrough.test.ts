/** The openai-responses pass-through: the request as it goes up, and the tap reading the answer stream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { ResponsesStreamTap, responsesPassthrough } from '../../../gateway/wire/openai-responses/passthrough.js';

const ev = (type: string, data: Record<string, unknown> = {}) => ({
  event: type,
  data: JSON.stringify({ type, ...data }),
});

describe('ResponsesStreamTap', () => {
  test('the terminal event carries the usage and ends the stream; deltas are what was produced', () => {
    const tap = new ResponsesStreamTap();
    tap.onEvent(ev('response.created', { response: { id: 'r' } }));
    tap.onEvent(ev('response.output_text.delta', { delta: 'Hel' }));
    tap.onEvent(ev('response.function_call_arguments.delta', { delta: '{"a":1}' }));
    tap.onEvent(ev('response.output_text.delta', { delta: 'lo' }));
    assert.equal(tap.complete(), false);
    tap.onEvent(
      ev('response.completed', {
        response: { usage: { input_tokens: 10, output_tokens: 4, input_tokens_details: { cached_tokens: 4 } } },
      }),
    );
    assert.equal(tap.complete(), true);
    assert.deepEqual(tap.usage(), { ...emptyUsage(), inputTokens: 6, cacheReadTokens: 4, outputTokens: 4 });
    assert.equal(tap.produced(), 'Hel{"a":1}lo');
  });

  test('the event type is read from the data when the event has no name', () => {
    const tap = new ResponsesStreamTap();
    tap.onEvent({
      data: JSON.stringify({ type: 'response.incomplete', response: { usage: { input_tokens: 1, output_tokens: 1 } } }),
    });
    assert.equal(tap.complete(), true);
  });

  test('response.failed and error events are in-band upstream errors', () => {
    const failed = new ResponsesStreamTap();
    failed.onEvent(ev('response.failed', { response: { error: { message: 'no capacity' } } }));
    assert.deepEqual([failed.complete(), failed.error()?.code], [true, 'upstream_stream_error']);
    const error = new ResponsesStreamTap();
    error.onEvent(ev('error', { message: 'bad' }));
    assert.match(error.error()!.message, /bad/);
  });

  test('a [DONE] some compatible servers add is dropped: Responses clients do not expect it', () => {
    assert.equal(new ResponsesStreamTap().onEvent({ data: '[DONE]' }), false);
  });
});

describe('responsesPassthrough', () => {
  test('rewrites only the model, and reads usage and output from a whole answer', () => {
    const body = { model: 'gpt-5-mini', input: 'hi', store: false };
    const raw = JSON.stringify(body);
    const p = responsesPassthrough(body, raw);
    assert.deepEqual(p.request('gpt-5-mini'), { path: '/responses', headers: {}, body: raw });
    assert.equal(JSON.parse(p.request('other').body).model, 'other');
    const answer = {
      output: [{ content: [{ text: 'ok' }] }, { arguments: '{"x":1}' }],
      usage: { input_tokens: 2, output_tokens: 3 },
    };
    assert.deepEqual(p.readAnswer(answer), {
      usage: { ...emptyUsage(), inputTokens: 2, outputTokens: 3 },
      produced: 'ok{"x":1}',
    });
  });
});
