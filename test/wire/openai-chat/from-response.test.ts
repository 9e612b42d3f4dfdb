import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { GatewayError } from '../../../gateway/core/errors.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { openaiChat } from '../../../gateway/wire/openai-chat/index.js';
import { fromResponse } from '../../../gateway/wire/openai-chat/from-response.js';

function completion(
  message: Partial<OpenAI.Chat.ChatCompletionMessage> & Record<string, unknown>,
  finish: string,
  usage?: OpenAI.CompletionUsage,
): OpenAI.Chat.ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-up',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, ...message },
        finish_reason: finish as 'stop',
        logprobs: null,
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

test('text, tool calls and usage', () => {
  const res = fromResponse(
    completion(
      {
        content: 'Sure.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          { id: 'call_b', type: 'function', function: { name: 'g', arguments: '' } },
        ],
      },
      'tool_calls',
      {
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 5 },
      },
    ),
  );
  assert.deepEqual(res, {
    id: 'chatcmpl-1',
    model: 'gpt-up',
    content: [
      { type: 'text', text: 'Sure.' },
      { type: 'tool_call', id: 'call_a', name: 'f', input: { x: 1 } },
      { type: 'tool_call', id: 'call_b', name: 'g', input: {} },
    ],
    stopReason: 'tool_use',
    usage: { ...emptyUsage(), inputTokens: 40, cacheReadTokens: 60, outputTokens: 20, reasoningTokens: 5 },
  });
});

test('finish reasons map back; tool calls under "stop" are still tool_use', () => {
  const stop = (finish: string, withCall = false) =>
    fromResponse(
      completion(
        withCall
          ? { tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }
          : { content: 'x' },
        finish,
      ),
    ).stopReason;
  assert.equal(stop('stop'), 'end_turn');
  assert.equal(stop('length'), 'max_tokens');
  assert.equal(stop('tool_calls', true), 'tool_use');
  assert.equal(stop('content_filter'), 'refusal');
  assert.equal(stop('stop', true), 'tool_use');
  assert.equal(stop('length', true), 'max_tokens');
});

test('a refusal is text with the refusal stop reason', () => {
  const res = fromResponse(completion({ refusal: "I can't help with that." }, 'stop'));
  assert.deepEqual(res.content, [{ type: 'text', text: "I can't help with that." }]);
  assert.equal(res.stopReason, 'refusal');
});

test('reasoning_content becomes a leading openai thinking block', () => {
  const res = fromResponse(completion({ content: '42', reasoning_content: 'Let me think.' }, 'stop'));
  assert.deepEqual(res.content, [
    { type: 'thinking', text: 'Let me think.', family: 'openai-chat' },
    { type: 'text', text: '42' },
  ]);
});

test('unparsable or non-object arguments are kept raw', () => {
  const res = fromResponse(
    completion(
      {
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a": "trunc' } },
          { id: 'c2', type: 'function', function: { name: 'f', arguments: '[1,2]' } },
        ],
      },
      'length',
    ),
  );
  assert.deepEqual(
    res.content.map((b) => (b.type === 'tool_call' ? b.input : null)),
    [{ _raw: '{"a": "trunc' }, { _raw: '[1,2]' }],
  );
});

test('missing usage reads as zero', () => {
  assert.deepEqual(fromResponse(completion({ content: 'x' }, 'stop')).usage, emptyUsage());
});

test('an error body or a body without choices is an upstream error', () => {
  const fails = (body: unknown, code: string, message?: RegExp) =>
    assert.throws(
      () => fromResponse(body),
      (e: unknown) =>
        e instanceof GatewayError && e.status === 502 && e.code === code && (!message || message.test(e.message)),
    );
  fails({ error: { message: 'model overloaded' } }, 'upstream_error', /model overloaded/);
  fails({ id: 'x', choices: [] }, 'upstream_malformed');
  fails('nope', 'upstream_malformed');
});

test('the format object wires the openai-chat upstream functions', () => {
  const openaiChatProvider = openaiChat.upstream.codec;
  assert.equal(openaiChat.id, 'openai-chat');
  assert.equal(openaiChatProvider.family, 'openai-chat');
  assert.deepEqual(openaiChatProvider.usage({ prompt_tokens: 3, completion_tokens: 1 }), {
    ...emptyUsage(),
    inputTokens: 3,
    outputTokens: 1,
  });
  assert.deepEqual(openaiChatProvider.usage(null), emptyUsage());
  assert.equal(
    openaiChatProvider.toRequest({ model: 'm', system: [], messages: [], tools: [], stream: false, notes: [] }).path,
    '/chat/completions',
  );
});
