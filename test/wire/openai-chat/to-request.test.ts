import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import type { CanonicalRequest } from '../../../gateway/core/canonical.js';
import { toRequest } from '../../../gateway/wire/openai-chat/to-request.js';

function request(over: Partial<CanonicalRequest>): CanonicalRequest {
  return {
    model: 'gpt-up',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    notes: [],
    ...over,
  };
}

describe('toRequest: messages', () => {
  test('system blocks become one leading system message; mid-conversation ones stay in place', () => {
    const up = toRequest(
      request({
        system: [
          { type: 'text', text: 'billing header', cacheControl: { type: 'ephemeral' } },
          { type: 'text', text: 'You are helpful.' },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'system',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      }),
    );
    assert.equal(up.path, '/chat/completions');
    const sdk: OpenAI.Chat.ChatCompletionCreateParams = up.body;
    assert.deepEqual(sdk.messages, [
      { role: 'system', content: 'billing header\n\nYou are helpful.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'a\n\nb' },
    ]);
    assert.deepEqual(up.notes, []);
  });

  test('user parts: images as URL or data URI with detail, documents as file parts', () => {
    const up = toRequest(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: 'AAA' }, detail: 'high' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
              { type: 'image', source: { kind: 'file', fileId: 'file_1' } },
              {
                type: 'document',
                source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVB' },
                title: 'r.pdf',
              },
              { type: 'document', source: { kind: 'file', fileId: 'file-9' } },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(up.body.messages[0], {
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAA', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        { type: 'text', text: '[image omitted]' },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVB', filename: 'r.pdf' } },
        { type: 'file', file: { file_id: 'file-9' } },
      ],
    });
    assert.equal(up.notes.length, 1);
  });

  test('tool results become tool messages right after the calls; the rest of the turn follows', () => {
    const up = toRequest(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'plan', signature: 's', family: 'anthropic' },
              { type: 'text', text: 'On ' },
              { type: 'text', text: 'it.' },
              { type: 'tool_call', id: 'toolu_1', name: 'read', input: { path: 'a.png' } },
              { type: 'tool_call', id: 'toolu_2', name: 'ls', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'also this' },
              {
                type: 'tool_result',
                toolCallId: 'toolu_1',
                content: [
                  { type: 'text', text: 'PNG' },
                  { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'x' } },
                ],
              },
              {
                type: 'tool_result',
                toolCallId: 'toolu_2',
                content: [{ type: 'text', text: 'no such dir' }],
                isError: true,
                cacheControl: { type: 'ephemeral' },
              },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_call', id: 't3', name: 'ls', input: { d: 1 } }] },
          { role: 'user', content: [{ type: 'tool_result', toolCallId: 't3', content: [], isError: true }] },
        ],
      }),
    );
    assert.deepEqual(up.body.messages.slice(1), [
      {
        role: 'assistant',
        content: 'On it.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'ls', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'PNG\n\n[image omitted]' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: no such dir' },
      { role: 'user', content: 'also this' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't3', type: 'function', function: { name: 'ls', arguments: '{"d":1}' } }],
      },
      { role: 'tool', tool_call_id: 't3', content: 'Error' },
    ]);
    assert.equal(up.notes.length, 2);
    assert.ok(up.notes.some((n) => /thinking/.test(n)));
    assert.ok(up.notes.some((n) => /tool result/.test(n)));
  });

  test('an assistant turn with only dropped blocks still has string content', () => {
    const up = toRequest(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] },
        ],
      }),
    );
    assert.deepEqual(up.body.messages[1], { role: 'assistant', content: '' });
  });
});

describe('toRequest: parameters', () => {
  const tools: CanonicalRequest['tools'] = [
    {
      name: 'f',
      description: 'does f',
      inputSchema: { type: 'object' },
      strict: true,
      cacheControl: { type: 'ephemeral' },
    },
    { name: 'g', inputSchema: { type: 'object', properties: {} } },
  ];

  test('tools and every tool_choice form', () => {
    const tc = (toolChoice: CanonicalRequest['toolChoice']) => {
      const b = toRequest(request({ tools, toolChoice })).body;
      return [b.tool_choice, b.parallel_tool_calls];
    };
    assert.deepEqual(toRequest(request({ tools })).body.tools, [
      {
        type: 'function',
        function: { name: 'f', description: 'does f', parameters: { type: 'object' }, strict: true },
      },
      { type: 'function', function: { name: 'g', parameters: { type: 'object', properties: {} } } },
    ]);
    assert.deepEqual(tc(undefined), [undefined, undefined]);
    assert.deepEqual(tc({ type: 'auto' }), ['auto', undefined]);
    assert.deepEqual(tc({ type: 'any', disableParallel: true }), ['required', false]);
    assert.deepEqual(tc({ type: 'none' }), ['none', undefined]);
    assert.deepEqual(tc({ type: 'tool', name: 'g', disableParallel: false }), [
      { type: 'function', function: { name: 'g' } },
      undefined,
    ]);
    // OpenAI refuses tool_choice without tools.
    assert.equal(
      toRequest(request({ toolChoice: { type: 'any', disableParallel: true } })).body.tool_choice,
      undefined,
    );
  });

  test('sampling and limits; temperature clamped; max_tokens unless the line asks otherwise', () => {
    const req = request({
      maxOutputTokens: 512,
      temperature: 3,
      topP: 0.5,
      topK: 40,
      seed: 1,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      stopSequences: ['##'],
      user: 'u',
      responseFormat: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: true },
    });
    const { model, messages, ...rest } = toRequest(req).body;
    assert.deepEqual(rest, {
      max_tokens: 512,
      temperature: 2,
      top_p: 0.5,
      seed: 1,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      stop: ['##'],
      user: 'u',
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } },
    });
    assert.deepEqual([model, messages.length], ['gpt-up', 1]);
    assert.match(toRequest(req).notes.join(), /top_k/);
    const o = toRequest(req, { maxTokensField: 'max_completion_tokens' }).body;
    assert.equal(o.max_completion_tokens, 512);
    assert.equal(o.max_tokens, undefined);
    assert.equal(toRequest(request({ temperature: -1 })).body.temperature, 0);
  });

  test('reasoning_effort from the effort or the thinking budget; adaptive and disabled send none', () => {
    const effort = (over: Partial<CanonicalRequest>) => toRequest(request(over)).body.reasoning_effort;
    assert.equal(
      effort({ reasoningEffort: 'minimal', thinking: { type: 'enabled', budgetTokens: 50_000 } }),
      'minimal',
    );
    assert.equal(effort({ thinking: { type: 'enabled', budgetTokens: 1024 } }), 'low');
    assert.equal(effort({ thinking: { type: 'enabled', budgetTokens: 2048 } }), 'low');
    assert.equal(effort({ thinking: { type: 'enabled', budgetTokens: 8192 } }), 'medium');
    assert.equal(effort({ thinking: { type: 'enabled', budgetTokens: 8193 } }), 'high');
    assert.equal(effort({ thinking: { type: 'adaptive' } }), undefined);
    assert.equal(effort({ thinking: { type: 'disabled' } }), undefined);
  });

  test('streaming asks for the usage chunk', () => {
    const up = toRequest(request({ stream: true }));
    assert.equal(up.body.stream, true);
    assert.deepEqual(up.body.stream_options, { include_usage: true });
    assert.equal(up.headers.accept, 'text/event-stream');
    const plain = toRequest(request({})).body;
    assert.equal('stream' in plain || 'stream_options' in plain, false);
  });
});

describe("toRequest: OpenRouter's reasoning field", () => {
  const loop = request({
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'I should call f', family: 'openai-chat' },
          { type: 'tool_call', id: 'c1', name: 'f', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'ok' }] }] },
    ],
  });

  test("the turn's thinking goes back in `reasoning`, not reasoning_content", () => {
    const body = toRequest(loop, { reasoningField: 'reasoning' }).body;
    const turn = body.messages[1] as { reasoning?: string; reasoning_content?: string };
    assert.equal(turn.reasoning, 'I should call f');
    assert.equal(turn.reasoning_content, undefined);
  });

  test('effort and the off switch go in its `reasoning` object, not reasoning_effort or thinking', () => {
    const on = toRequest({ ...loop, reasoningEffort: 'high' }, { reasoningField: 'reasoning' }).body;
    assert.deepEqual([on.reasoning, on.reasoning_effort], [{ effort: 'high' }, undefined]);
    const off = toRequest({ ...loop, thinking: { type: 'disabled' } }, { reasoningField: 'reasoning' }).body;
    assert.deepEqual([off.reasoning, off.thinking], [{ enabled: false }, undefined]);
  });
});
