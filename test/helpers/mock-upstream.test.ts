import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from './mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});
after(async () => {
  await mock.close();
});
beforeEach(() => mock.reset());

const openai = (scenario = '', maxRetries = 0) =>
  new OpenAI({ baseURL: scenarioBase(mock, scenario), apiKey: 'x', maxRetries });
// Anthropic and Gemini base URLs are origins: the SDKs append /v1/messages and /v1beta/models/… themselves.
const anthropic = (scenario = '') =>
  new Anthropic({ baseURL: scenarioOrigin(mock, scenario), apiKey: 'x', maxRetries: 0 });

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        metric: { type: 'boolean' },
        note: { type: 'string' },
      },
      required: ['city', 'days', 'metric'],
    },
  },
};
const timeTool = {
  type: 'function' as const,
  function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
};

describe('OpenAI chat completions', () => {
  test('non-streaming reply has the real shape and deterministic usage', async () => {
    const content = 'Say hi to the nice people'; // 25 chars -> ceil(25/4) = 7 prompt tokens
    const res = await openai().chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content }] });
    assert.match(res.id, /^chatcmpl-/);
    assert.equal(res.object, 'chat.completion');
    assert.equal(res.model, 'gpt-test');
    assert.equal(typeof res.created, 'number');
    const choice = res.choices[0]!;
    assert.deepEqual(choice.message, {
      role: 'assistant',
      content: `mock reply to: ${content}`,
      refusal: null,
      annotations: [],
    });
    assert.equal(choice.finish_reason, 'stop');
    assert.equal(choice.logprobs, null);
    assert.deepEqual(res.usage, {
      prompt_tokens: 7,
      completion_tokens: 9,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });

    assert.equal(mock.requests.length, 1);
    const recorded = mock.requests[0]!;
    assert.equal(recorded.method, 'POST');
    assert.equal(recorded.path, '/v1/chat/completions');
    assert.equal(recorded.headers.authorization, 'Bearer x');
    assert.equal(recorded.body.model, 'gpt-test');
    assert.equal(recorded.scenario.name, '');
  });

  test('stream without include_usage: role chunk, one word per chunk, finish chunk, no usage anywhere', async () => {
    const stream = await openai().chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'abc def' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.deepEqual(chunks[0]!.choices[0]!.delta, { role: 'assistant', content: '', refusal: null });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.equal(text, 'mock reply to: abc def');
    assert.equal(chunks.length, 1 + 5 + 1);
    assert.deepEqual(chunks.at(-1)!.choices[0]!.delta, {});
    assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'stop');
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
    assert.ok(
      chunks.every((c) => !('usage' in c)),
      'no usage key without include_usage',
    );
  });

  test('stream with include_usage: usage:null on every chunk, then a choices:[] usage chunk', async () => {
    const stream = await openai('words=4').chat.completions.create({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: '12345678' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.prompt_tokens, 2);
    assert.equal(last.usage?.completion_tokens, 4);
    assert.equal(last.usage?.total_tokens, 6);
    assert.ok(
      chunks.slice(0, -1).every((c) => c.usage === null),
      'usage: null before the last chunk',
    );
    assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, 'stop');
  });

  test('max_tokens below the word count truncates with finish_reason length', async () => {
    const res = await openai('words=10').chat.completions.create({
      model: 'm',
      max_tokens: 3,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(res.choices[0]!.message.content, 'w1 w2 w3');
    assert.equal(res.choices[0]!.finish_reason, 'length');
    assert.equal(res.usage?.completion_tokens, 3);
  });

  test('forced usage, reply text with an escaped comma, and no-usage', async () => {
    const forced = await openai(
      'usage-in=100,usage-out=7,usage-cached=40,reply=hello%2C%20world',
    ).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(forced.choices[0]!.message.content, 'hello, world');
    assert.equal(forced.usage?.prompt_tokens, 100);
    assert.equal(forced.usage?.completion_tokens, 7);
    assert.equal(forced.usage?.prompt_tokens_details?.cached_tokens, 40);

    const bare = await openai('no-usage').chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(bare.usage, undefined);
    const stream = await openai('no-usage').chat.completions.create({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(
      chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''),
      'mock reply to: hi',
      'the stream came whole',
    );
    assert.ok(
      chunks.every((c) => c.choices.length === 1 && !('usage' in c)),
      'no usage chunk and no usage key',
    );
  });

  test('streamed tool call is assembled by the SDK stream helper', async () => {
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    const stream = openai().chat.completions.stream({
      model: 'm',
      tools: [weatherTool, timeTool],
      messages: [{ role: 'user', content: 'weather?' }],
    });
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const done = await stream.finalChatCompletion();
    const choice = done.choices[0]!;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    const calls = choice.message.tool_calls ?? [];
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.ok(call.type === 'function', call.type);
    assert.match(call.id, /^call_/);
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'x', days: 1, metric: true });

    const fragments = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    assert.deepEqual(fragments[0], {
      index: 0,
      id: call.id,
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    assert.equal(fragments.length, 4, 'one opening fragment, then the arguments in 3 pieces');
    assert.ok(
      fragments.slice(1).every((f) => f.id === undefined && f.function?.name === undefined),
      'only the first fragment names the call',
    );
  });

  test('non-streaming tool call, tool_choice none, and a tool result turn', async () => {
    const call = await openai().chat.completions.create({
      model: 'm',
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(call.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(call.usage?.completion_tokens, 5);

    const none = await openai().chat.completions.create({
      model: 'm',
      tools: [weatherTool],
      tool_choice: 'none',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(none.choices[0]!.message.content, 'mock reply to: x');

    const id = call.choices[0]!.message.tool_calls![0]!.id;
    const result = await openai().chat.completions.create({
      model: 'm',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'x' },
        call.choices[0]!.message,
        { role: 'tool', tool_call_id: id, content: 'sunny 21C' },
      ],
    });
    assert.equal(result.choices[0]!.message.content, 'tool result: sunny 21C');
    assert.equal(result.choices[0]!.finish_reason, 'stop');
  });

  test('"parallel" in the user text calls the first two tools with interleaved fragments', async () => {
    const stream = await openai().chat.completions.create({
      model: 'm',
      stream: true,
      tools: [weatherTool, timeTool],
      messages: [{ role: 'user', content: 'do it in parallel' }],
    });
    const byIndex = new Map<number, { id?: string; name?: string; args: string }>();
    const order: number[] = [];
    for await (const chunk of stream) {
      for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
        order.push(fragment.index);
        const call = byIndex.get(fragment.index) ?? { args: '' };
        call.id ??= fragment.id;
        call.name ??= fragment.function?.name;
        call.args += fragment.function?.arguments ?? '';
        byIndex.set(fragment.index, call);
      }
    }
    assert.equal(byIndex.get(0)?.name, 'get_weather');
    assert.equal(byIndex.get(1)?.name, 'get_time');
    assert.deepEqual(JSON.parse(byIndex.get(0)!.args), { city: 'x', days: 1, metric: true });
    assert.deepEqual(JSON.parse(byIndex.get(1)!.args), {});
    assert.notEqual(byIndex.get(0)?.id, byIndex.get(1)?.id);
    assert.deepEqual(order.slice(0, 4), [0, 1, 0, 1], 'fragments of the two calls are interleaved');

    const single = await openai().chat.completions.create({
      model: 'm',
      parallel_tool_calls: false,
      tools: [weatherTool, timeTool],
      messages: [{ role: 'user', content: 'parallel' }],
    });
    assert.equal(single.choices[0]!.message.tool_calls?.length, 1);
  });

  test('status=500 raises APIError with the OpenAI error body', async () => {
    await assert.rejects(
      openai('status=500').chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      (err) => {
        assert.ok(err instanceof OpenAI.APIError, String(err));
        assert.equal(err.status, 500);
        assert.equal(err.type, 'server_error');
        assert.match(err.message, /^500 mock error/);
        return true;
      },
    );
    assert.equal(mock.requests.length, 1);
  });

  test('status=429 with retry-after: the header reaches the SDK, which waits that long before retrying', async () => {
    await assert.rejects(
      openai('status=429,retry-after=1').chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
      (err) => {
        assert.ok(err instanceof OpenAI.RateLimitError, String(err));
        assert.equal(err.status, 429);
        assert.equal(err.code, 'rate_limit_exceeded');
        assert.equal(err.headers?.get('retry-after'), '1');
        return true;
      },
    );
    mock.reset();
    const started = Date.now();
    await assert.rejects(
      openai('status=429,retry-after=1', 1).chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    assert.equal(mock.requests.length, 2);
    assert.ok(Date.now() - started >= 900, `retried after ${Date.now() - started} ms`);
  });

  test('GET /v1/models lists the mock models in both vendor shapes', async () => {
    const ids = [];
    for await (const model of openai().models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['mock-small', 'mock-large']);
    const page = await anthropic().models.list();
    assert.deepEqual(
      page.data.map((m) => [m.type, m.id]),
      [
        ['model', 'mock-small'],
        ['model', 'mock-large'],
      ],
    );
  });
});
