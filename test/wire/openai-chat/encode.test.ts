import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import type { CanonicalResponse, StopReason } from '../../../gateway/core/canonical.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { encodeResponse } from '../../../gateway/wire/openai-chat/encode.js';

const ctx = { requestedModel: 'my-alias', requestId: 'req_abc123' };

function response(over: Partial<CanonicalResponse>): CanonicalResponse {
  return { id: 'msg_01', model: 'upstream-model', content: [], stopReason: 'end_turn', usage: emptyUsage(), ...over };
}

test('text and tool calls become one chat.completion the SDK type accepts', () => {
  const before = Math.floor(Date.now() / 1000);
  const body: OpenAI.Chat.ChatCompletion = encodeResponse(
    response({
      content: [
        { type: 'thinking', text: 'hmm', signature: 'sig', family: 'anthropic' },
        { type: 'text', text: 'Let me ' },
        { type: 'text', text: 'check.' },
        { type: 'tool_call', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_call', id: 'toolu_2', name: 'now', input: {}, signature: 'CiG', signatureFamily: 'gemini' },
      ],
      stopReason: 'tool_use',
      usage: {
        ...emptyUsage(),
        inputTokens: 100,
        cacheReadTokens: 50,
        cacheWriteTokens: 25,
        outputTokens: 40,
        reasoningTokens: 10,
      },
    }),
    ctx,
  );
  assert.ok(body.created >= before && body.created <= before + 2);
  assert.deepEqual(
    { ...body, created: 0 },
    {
      id: 'chatcmpl-abc123',
      object: 'chat.completion',
      created: 0,
      model: 'my-alias',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            refusal: null,
            reasoning_content: 'hmm',
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              // Gemini's signature where Gemini's OpenAI-compatible endpoint puts it.
              {
                id: 'toolu_2',
                type: 'function',
                function: { name: 'now', arguments: '{}' },
                extra_content: { google: { thought_signature: 'CiG' } },
              } as OpenAI.Chat.ChatCompletionMessageToolCall,
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      // OpenAI counts cache reads (and writes, which it has no field for) inside prompt_tokens.
      usage: {
        prompt_tokens: 175,
        completion_tokens: 40,
        total_tokens: 215,
        prompt_tokens_details: { cached_tokens: 50, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 10 },
      },
    },
  );
});

test('content is null next to tool calls only, and "" for an empty answer', () => {
  const calls = encodeResponse(
    response({ content: [{ type: 'tool_call', id: 'c', name: 'f', input: { a: [1] } }], stopReason: 'tool_use' }),
    ctx,
  );
  assert.equal(calls.choices[0]!.message.content, null);
  const empty = encodeResponse(
    response({ content: [{ type: 'thinking', text: 'only thoughts' }], stopReason: 'max_tokens' }),
    ctx,
  );
  assert.equal(empty.choices[0]!.message.content, '');
  assert.equal(empty.choices[0]!.message.tool_calls, undefined);
});

test('an upstream chatcmpl- id is kept', () => {
  assert.equal(encodeResponse(response({ id: 'chatcmpl-upstream' }), ctx).id, 'chatcmpl-upstream');
});

test('every stop reason maps to a finish_reason (docs/protocols.md §6.5)', () => {
  const table: Record<StopReason, string> = {
    end_turn: 'stop',
    stop_sequence: 'stop',
    pause_turn: 'stop',
    max_tokens: 'length',
    context_exceeded: 'length',
    tool_use: 'tool_calls',
    refusal: 'content_filter',
  };
  for (const [reason, finish] of Object.entries(table)) {
    assert.equal(
      encodeResponse(response({ stopReason: reason as StopReason }), ctx).choices[0]!.finish_reason,
      finish,
      reason,
    );
  }
});

test('audio and image input tokens are prompt tokens too', () => {
  const u = encodeResponse(
    response({
      usage: { ...emptyUsage(), inputTokens: 10, audioInputTokens: 5, imageInputTokens: 7, outputTokens: 1 },
    }),
    ctx,
  ).usage;
  assert.equal(u.prompt_tokens, 22);
  assert.equal(u.prompt_tokens_details.audio_tokens, 5);
  assert.equal(u.total_tokens, 23);
});
