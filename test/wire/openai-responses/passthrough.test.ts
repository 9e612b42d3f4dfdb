/** The openai-responses pass-through: the request as it goes up, and the tap reading the answer stream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bind } from '../../../gateway/core/signatures.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import {
  ResponsesStreamTap,
  responsesPassthrough,
  responsesSignatures,
} from '../../../gateway/wire/openai-responses/passthrough.js';

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

describe('encrypted content bound to lines (docs/protocols.md §6.6)', () => {
  const line = { id: 'line_a' };
  const input = (encrypted: string) => [
    { role: 'user', content: 'q' },
    { type: 'compaction', id: 'cmp_1', encrypted_content: encrypted },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: encrypted },
    { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'x' }] },
  ];

  test("this line's reasoning and compaction go up unbound, in the client's own bytes", () => {
    const body = { model: 'gpt-5.5', store: false, input: input(bind('gAAAA', 'line_a')) };
    const raw = JSON.stringify(body);
    const up = responsesPassthrough(body, raw).request('gpt-5.5', undefined, undefined, line);
    assert.equal(up.body, raw.replaceAll(bind('gAAAA', 'line_a'), 'gAAAA'));
    assert.equal(up.notes, undefined);
  });

  test("another line's are taken out, each kind with its note; phase stays", () => {
    const body = { model: 'gpt-5.5', store: false, input: input(bind('gAAAA', 'line_b')) };
    const up = responsesPassthrough(body, JSON.stringify(body)).request('gpt-5.5', undefined, undefined, line);
    const sent = JSON.parse(up.body) as { input: Record<string, unknown>[] };
    assert.deepEqual(sent.input, [body.input[0], body.input[3]]);
    assert.equal(up.notes?.length, 2);
    assert.match(up.notes!.join('\n'), /1 reasoning item\(s\) made by another line[\s\S]*1 compaction item\(s\)/);
  });

  test('answers: reasoning and compaction items bound, in whole answers and in the events that hold them', () => {
    const answer = {
      output: [
        { type: 'reasoning', encrypted_content: 'gA' },
        { type: 'compaction', encrypted_content: 'gB' },
        { type: 'message', content: [{ type: 'output_text', text: 'encrypted_content' }] },
      ],
    };
    assert.equal(responsesSignatures.answer(answer, 'line_a'), true);
    assert.deepEqual(
      answer.output.slice(0, 2).map((i) => i.encrypted_content),
      [bind('gA', 'line_a'), bind('gB', 'line_a')],
    );
    const done = ev('response.output_item.done', { item: { type: 'reasoning', encrypted_content: 'gC' } }).data;
    assert.match(responsesSignatures.event(done, 'line_a'), /tollgate\.l1\.line_a\.gC/);
    const completed = ev('response.completed', {
      response: { output: [{ type: 'reasoning', encrypted_content: 'gD' }] },
    }).data;
    assert.match(responsesSignatures.event(completed, 'line_a'), /tollgate\.l1\.line_a\.gD/);
    const text = ev('response.output_text.delta', { delta: '"encrypted_content"' }).data;
    assert.equal(responsesSignatures.event(text, 'line_a'), text);
  });
});
