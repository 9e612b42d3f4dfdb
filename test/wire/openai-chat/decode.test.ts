import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { decodeRequest } from '../../../gateway/wire/openai-chat/decode.js';
import { GatewayError } from '../../../gateway/core/errors.js';

type Params = OpenAI.Chat.ChatCompletionCreateParams;

function rejects(body: unknown, expected: { param: string; code?: string; message?: RegExp }): void {
  assert.throws(
    () => decodeRequest(body),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.status, 400);
      assert.equal(err.param, expected.param);
      if (expected.code) assert.equal(err.code, expected.code);
      if (expected.message) assert.match(err.message, expected.message);
      return true;
    },
  );
}

const PNG = 'iVBORw0KGgo=';

describe('decodeRequest: messages', () => {
  test('leading system and developer messages become system blocks; later ones stay in place', () => {
    const body: Params = {
      model: 'gpt-x',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Use metric.' },
            { type: 'text', text: 'No emoji.' },
          ],
        },
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'Now answer in French.' },
      ],
    };
    const req = decodeRequest(body);
    assert.deepEqual(req.system, [
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Use metric.' },
      { type: 'text', text: 'No emoji.' },
    ]);
    assert.deepEqual(req.messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'Now answer in French.' }] },
    ]);
    assert.equal(req.stream, false);
    assert.deepEqual(req.notes, []);
  });

  test('user parts: text, https and data: images with detail, files', () => {
    const body: Params = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
            { type: 'file', file: { file_id: 'file-123' } },
          ],
        },
      ],
    };
    assert.deepEqual(decodeRequest(body).messages[0]!.content, [
      { type: 'text', text: 'look' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, detail: 'low' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' },
      { type: 'document', source: { kind: 'file', fileId: 'file-123' } },
    ]);
  });

  test('audio input is refused with the part named', () => {
    const body: Params = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
    };
    rejects(body, { param: 'messages[0].content[0]', code: 'unsupported_value', message: /audio/ });
  });

  test('assistant text, refusal and tool calls; arguments parsed, empty arguments are {}', () => {
    const body: Params = {
      model: 'm',
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris","days":[1,2]}' },
            },
            { id: 'call_2', type: 'function', function: { name: 'now', arguments: '' } },
          ],
        },
        { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
      ],
    };
    const req = decodeRequest(body);
    assert.deepEqual(req.messages[1], {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } },
        { type: 'tool_call', id: 'call_2', name: 'now', input: {} },
      ],
    });
    assert.deepEqual(req.messages[2], {
      role: 'assistant',
      content: [{ type: 'text', text: 'I cannot help with that.' }],
    });
  });

  test('unparsable or non-object tool arguments are a 400 naming the field', () => {
    const call = (args: string): Params => ({
      model: 'm',
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'f', arguments: args } },
          ],
        },
      ],
    });
    rejects(call('{"a":'), { param: 'messages[1].tool_calls[1].function.arguments' });
    rejects(call('[1]'), { param: 'messages[1].tool_calls[1].function.arguments' });
  });

  test('consecutive tool messages become one user message; names come from the calls', () => {
    const body: Params = {
      model: 'm',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"p":"a"}' } },
            { id: 'c2', type: 'function', function: { name: 'list', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'file a' },
        {
          role: 'tool',
          tool_call_id: 'c2',
          content: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
        { role: 'tool', tool_call_id: 'unknown', content: '' },
        { role: 'user', content: 'thanks' },
      ],
    };
    const req = decodeRequest(body);
    assert.equal(req.messages.length, 4);
    assert.deepEqual(req.messages[2], {
      role: 'user',
      content: [
        { type: 'tool_result', toolCallId: 'c1', name: 'read', content: [{ type: 'text', text: 'file a' }] },
        {
          type: 'tool_result',
          toolCallId: 'c2',
          name: 'list',
          content: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
        { type: 'tool_result', toolCallId: 'unknown', content: [] },
      ],
    });
    assert.deepEqual(req.messages[3], { role: 'user', content: [{ type: 'text', text: 'thanks' }] });
  });

  test('the legacy function-calling format is refused with a pointer to tools', () => {
    rejects(
      { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] },
      { param: 'messages[0].role', code: 'unsupported_parameter', message: /tools/ },
    );
    rejects(
      { model: 'm', messages: [{ role: 'user', content: 'x' }], functions: [{ name: 'f' }] },
      { param: 'functions' },
    );
    rejects(
      { model: 'm', messages: [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] },
      { param: 'messages[0].function_call' },
    );
  });

  test('malformed bodies are 400s', () => {
    rejects(null, { param: 'body' });
    rejects({ model: '', messages: [{ role: 'user', content: 'x' }] }, { param: 'model' });
    rejects({ model: 'm', messages: [] }, { param: 'messages' });
    rejects({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, { param: 'messages[0].role' });
    rejects({ model: 'm', messages: [{ role: 'tool', content: 'x' }] }, { param: 'messages[0].tool_call_id' });
    rejects({ model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }, { param: 'temperature' });
  });
});

describe('decodeRequest: reasoning the client kept', () => {
  test("reasoning_content is the turn's unsigned thinking, first; a Gemini signature on a call comes back from extra_content", () => {
    const req = decodeRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'look it up',
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'f', arguments: '{}' },
              extra_content: { google: { thought_signature: 'CiG' } },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        { role: 'assistant', content: 'done', reasoning_content: '' },
      ],
    });
    assert.deepEqual(req.messages[1]!.content, [
      { type: 'thinking', text: 'look it up', family: 'openai-chat' },
      { type: 'tool_call', id: 'c1', name: 'f', input: {}, signature: 'CiG', signatureFamily: 'gemini' },
    ]);
    assert.deepEqual(
      req.messages[3]!.content,
      [{ type: 'text', text: 'done' }],
      'an empty reasoning_content is no block',
    );
  });
});

describe('decodeRequest: parameters', () => {
  const base = { model: 'gpt-x', messages: [{ role: 'user' as const, content: 'hi' }] };

  test('function tools keep strict; other tool kinds are dropped with a note', () => {
    const body: Params = {
      ...base,
      tools: [
        {
          type: 'function',
          function: {
            name: 'f',
            description: 'does f',
            parameters: { type: 'object', properties: { a: { type: 'string' } } },
            strict: true,
          },
        },
        { type: 'function', function: { name: 'g' } },
        { type: 'custom', custom: { name: 'grammar' } },
      ],
    };
    const req = decodeRequest(body);
    assert.deepEqual(req.tools, [
      {
        name: 'f',
        description: 'does f',
        inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
        strict: true,
      },
      { name: 'g', inputSchema: { type: 'object', properties: {} } },
    ]);
    assert.equal(req.notes.length, 1);
    assert.match(req.notes[0]!, /custom/);
  });

  test('tool_choice forms and parallel_tool_calls:false', () => {
    const tc = (tool_choice: unknown, parallel_tool_calls?: boolean) =>
      decodeRequest({ ...base, tool_choice, parallel_tool_calls }).toolChoice;
    assert.deepEqual(tc('none'), { type: 'none' });
    assert.deepEqual(tc('none', false), { type: 'none' });
    assert.deepEqual(tc('auto'), { type: 'auto' });
    assert.deepEqual(tc('required'), { type: 'any' });
    assert.deepEqual(tc({ type: 'function', function: { name: 'f' } }, false), {
      type: 'tool',
      name: 'f',
      disableParallel: true,
    });
    assert.deepEqual(tc(undefined, false), { type: 'auto', disableParallel: true });
    assert.equal(tc(undefined, true), undefined);
  });

  test('sampling, limits, stop, user, effort and response format', () => {
    const body: Params = {
      ...base,
      stream: true,
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: 'END',
      temperature: 0.3,
      top_p: 0.9,
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: -0.2,
      user: 'u-1',
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
    };
    const { model, messages, system, tools, notes, ...rest } = decodeRequest(body);
    assert.deepEqual(rest, {
      stream: true,
      maxOutputTokens: 200,
      stopSequences: ['END'],
      temperature: 0.3,
      topP: 0.9,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: -0.2,
      user: 'u-1',
      reasoningEffort: 'low',
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
    });
    assert.deepEqual([model, messages.length, system, tools, notes], ['gpt-x', 1, [], [], []]);
    assert.equal(decodeRequest({ ...base, max_tokens: 50 }).maxOutputTokens, 50);
    assert.deepEqual(decodeRequest({ ...base, stop: ['a', 'b'] }).stopSequences, ['a', 'b']);
    assert.deepEqual(decodeRequest({ ...base, response_format: { type: 'json_object' } }).responseFormat, {
      type: 'json_object',
    });
  });

  test('reasoning_effort outside the canonical scale', () => {
    assert.deepEqual(decodeRequest({ ...base, reasoning_effort: 'none' }).thinking, { type: 'disabled' });
    const high = decodeRequest({ ...base, reasoning_effort: 'xhigh' });
    assert.equal(high.reasoningEffort, 'high');
    assert.equal(high.notes.length, 1);
  });

  test('n > 1 is refused; n = 1 is fine', () => {
    rejects({ ...base, n: 2 }, { param: 'n', code: 'unsupported_value', message: /single choice/ });
    assert.equal(decodeRequest({ ...base, n: 1 }).model, 'gpt-x');
  });

  test('input-side fields with no canonical place are noted; asked-for output it cannot bring back is marked for refusal', () => {
    const req = decodeRequest({
      ...base,
      logprobs: true,
      top_logprobs: 3,
      logit_bias: { '1': 2 },
      metadata: { a: 'b' },
      store: false,
    });
    assert.deepEqual(req.notes, ['logit_bias is not carried to this upstream']);
    assert.deepEqual(req.uncarriedOutputs, [{ param: 'logprobs', what: 'log probabilities' }]);
    assert.deepEqual(decodeRequest({ ...base, top_logprobs: 2 }).uncarriedOutputs, [
      { param: 'top_logprobs', what: 'log probabilities' },
    ]);
    assert.deepEqual(
      decodeRequest({ ...base, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } })
        .uncarriedOutputs,
      [{ param: 'modalities', what: 'audio output' }],
    );
    assert.deepEqual(decodeRequest({ ...base, audio: { voice: 'alloy', format: 'wav' } }).uncarriedOutputs, [
      { param: 'audio', what: 'audio output' },
    ]);
    assert.equal(decodeRequest({ ...base, logprobs: false, modalities: ['text'] }).uncarriedOutputs, undefined);
  });
});

describe('decodeRequest: prompt_cache_key', () => {
  test('is kept for an upstream that takes it', () => {
    const req = decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], prompt_cache_key: 'k1' });
    assert.equal(req.promptCacheKey, 'k1');
  });
});
