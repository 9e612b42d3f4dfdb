/** The anthropic pass-through: the request as it goes up, and the tap reading the answer stream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bind } from '../../../gateway/core/signatures.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import {
  MessagesStreamTap,
  messagesPassthrough,
  messagesSignatures,
} from '../../../gateway/wire/anthropic/passthrough.js';

const ev = (event: string, data: Record<string, unknown>) => ({
  event,
  data: JSON.stringify({ type: event, ...data }),
});

describe('MessagesStreamTap', () => {
  test('message_start gives the prompt, message_delta the cumulative output, message_stop the end', () => {
    const tap = new MessagesStreamTap();
    tap.onEvent(
      ev('message_start', { message: { usage: { input_tokens: 20, cache_read_input_tokens: 5, output_tokens: 1 } } }),
    );
    tap.onEvent(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    tap.onEvent(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi ' } }));
    tap.onEvent(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'there' } }));
    tap.onEvent(ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } }));
    // message_start's output_tokens (1) is a placeholder: no final usage yet, only the prompt's.
    assert.equal(tap.usage(), undefined);
    assert.deepEqual(tap.promptUsage(), { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 5, outputTokens: 1 });
    tap.onEvent(ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }));
    tap.onEvent(ev('message_delta', { delta: {}, usage: { output_tokens: 9 } }));
    assert.equal(tap.complete(), false);
    tap.onEvent(ev('message_stop', {}));
    assert.equal(tap.complete(), true);
    assert.deepEqual(tap.usage(), { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 5, outputTokens: 9 });
    assert.equal(tap.produced(), 'Hi there{"a":');
  });

  test('without message_delta or message_stop, a start reporting no output is no usage: the caller counts', () => {
    const tap = new MessagesStreamTap();
    tap.onEvent(ev('message_start', { message: { usage: { input_tokens: 20, output_tokens: 0 } } }));
    assert.equal(tap.usage(), undefined);
  });

  test('an overloaded error event is a 503, any other a 502', () => {
    const overloaded = new MessagesStreamTap();
    overloaded.onEvent(ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }));
    assert.deepEqual([overloaded.error()?.status, overloaded.error()?.code], [503, 'upstream_stream_error']);
    const other = new MessagesStreamTap();
    other.onEvent(ev('error', { error: { type: 'api_error', message: 'boom' } }));
    assert.equal(other.error()?.status, 502);
  });

  test('a truncated event is refused, and a stream without message_stop has no tail to repair', () => {
    const tap = new MessagesStreamTap();
    assert.throws(
      () => tap.onEvent({ event: 'content_block_delta', data: '{"type":"content_block_delta"' }),
      SyntaxError,
    );
    assert.equal(tap.repairTail(), undefined);
  });
});

describe('messagesPassthrough', () => {
  const body = { model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
  const raw = JSON.stringify(body);

  test("passes the client's anthropic-version and anthropic-beta on, and its bytes when the model id is the same", () => {
    const up = messagesPassthrough(body, raw, {
      'anthropic-version': '2024-01-01',
      'anthropic-beta': ['a', 'b'],
    }).request('claude-haiku-4-5');
    assert.deepEqual(up, {
      path: '/v1/messages',
      headers: { 'anthropic-version': '2024-01-01', 'anthropic-beta': 'a,b' },
      body: raw,
    });
  });

  test('sends the default version when the client sent none, and rewrites a mapped model', () => {
    const up = messagesPassthrough(body, raw, {}).request('vendor-haiku');
    assert.deepEqual(up.headers, { 'anthropic-version': '2023-06-01' });
    assert.equal(JSON.parse(up.body).model, 'vendor-haiku');
  });

  test('reads usage and what was produced from a whole answer', () => {
    const answer = {
      content: [
        { type: 'thinking', thinking: 'hm' },
        { type: 'text', text: 'ok' },
        { type: 'tool_use', input: { a: 1 } },
      ],
      usage: { input_tokens: 3, output_tokens: 4 },
    };
    assert.deepEqual(messagesPassthrough(body, raw, {}).readAnswer(answer), {
      usage: { ...emptyUsage(), inputTokens: 3, outputTokens: 4 },
      produced: 'hmok{"a":1}',
    });
  });
});

describe('signatures bound to lines (docs/protocols.md §6.6)', () => {
  const line = { id: 'line_a' };
  const thinking = (signature: string) => ({ type: 'thinking', thinking: 't', signature });
  const call = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} };
  const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };
  const body = (first: Record<string, unknown>) => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [first, call] }, result],
  });

  test("this line's signatures go up unbound, the client's other bytes untouched", () => {
    const b = body(thinking(bind('EqSig', 'line_a')));
    const raw = JSON.stringify(b, null, 1);
    const up = messagesPassthrough(b, raw, { 'anthropic-version': '2023-06-01' }).request(
      'claude-sonnet-4-6',
      undefined,
      undefined,
      line,
    );
    assert.equal(up.body, raw.replace(bind('EqSig', 'line_a'), 'EqSig'), 'unbound in the raw text, not re-serialised');
    assert.equal(up.notes, undefined);
  });

  test("another line's thinking is left out, and thinking goes off for the loop it opened", () => {
    const b = body(thinking(bind('EqSig', 'line_b')));
    const up = messagesPassthrough(b, JSON.stringify(b), { 'anthropic-version': '2023-06-01' }).request(
      'claude-sonnet-4-6',
      undefined,
      undefined,
      line,
    );
    const sent = JSON.parse(up.body) as { messages: { content: unknown[] }[]; thinking: unknown };
    assert.deepEqual(sent.messages[1]!.content, [call]);
    assert.deepEqual(sent.thinking, { type: 'disabled' });
    assert.match(up.notes!.join('\n'), /left out 1 thinking block\(s\) made by another line[\s\S]*thinking turned off/);
  });

  test('a redacted block of this line is unbound, of another line removed', () => {
    const b = {
      ...body({ type: 'redacted_thinking', data: bind('Rd', 'line_a') }),
      thinking: { type: 'disabled' },
    };
    b.messages[1] = {
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: bind('Rd', 'line_a') },
        { type: 'redacted_thinking', data: bind('X', 'line_b') },
        call,
      ],
    };
    const up = messagesPassthrough(b, JSON.stringify(b), {}).request('claude-sonnet-4-6', undefined, undefined, line);
    assert.deepEqual((JSON.parse(up.body) as { messages: { content: unknown[] }[] }).messages[1]!.content, [
      { type: 'redacted_thinking', data: 'Rd' },
      call,
    ]);
  });

  test('answers: signatures and redacted data bound; other events pass as the same string', () => {
    const answer = {
      content: [thinking('EqSig'), { type: 'redacted_thinking', data: 'Rd' }, { type: 'text', text: 'hi' }],
    };
    assert.equal(messagesSignatures.answer(answer, 'line_a'), true);
    assert.deepEqual(answer.content.slice(0, 2), [
      thinking(bind('EqSig', 'line_a')),
      { type: 'redacted_thinking', data: bind('Rd', 'line_a') },
    ]);
    assert.equal(messagesSignatures.answer({ content: [{ type: 'text', text: 'x' }] }, 'line_a'), false);
    const sig = ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'EqSig' } }).data;
    assert.equal(
      (JSON.parse(messagesSignatures.event(sig, 'line_a')) as { delta: { signature: string } }).delta.signature,
      bind('EqSig', 'line_a'),
    );
    const start = ev('content_block_start', {
      index: 1,
      content_block: { type: 'redacted_thinking', data: 'Rd' },
    }).data;
    assert.match(messagesSignatures.event(start, 'line_a'), /tollgate\.l1\.line_a\.Rd/);
    const empty = ev('content_block_start', { index: 0, content_block: thinking('') }).data;
    assert.equal(messagesSignatures.event(empty, 'line_a'), empty);
    const text = ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '"signature_delta"' } }).data;
    assert.equal(messagesSignatures.event(text, 'line_a'), text);
  });
});
