/** The mock's OpenAI Responses API, driven with the official `openai` SDK (and raw fetch for broken streams). */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});
after(async () => {
  await mock.close();
});
beforeEach(() => mock.reset());

const openai = (scenario = '') => new OpenAI({ baseURL: scenarioBase(mock, scenario), apiKey: 'x', maxRetries: 0 });

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  strict: false,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
  },
};
const timeTool = {
  type: 'function' as const,
  name: 'get_time',
  strict: false,
  parameters: { type: 'object', properties: {} },
};

describe('OpenAI responses', () => {
  test('responses.create returns a completed response with the real shape and usage', async () => {
    const res = await openai().responses.create({ model: 'gpt-test', instructions: 'be brief', input: 'hello there' });
    assert.match(res.id, /^resp_/);
    assert.equal(res.object, 'response');
    assert.equal(res.status, 'completed');
    assert.equal(res.model, 'gpt-test');
    assert.equal(res.instructions, 'be brief');
    assert.equal(res.incomplete_details, null);
    assert.equal(res.error, null);
    assert.equal(res.output_text, 'mock reply to: hello there');
    assert.equal(res.output.length, 1);
    const item = res.output[0]!;
    assert.ok(item.type === 'message');
    assert.match(item.id, /^msg_/);
    assert.equal(item.role, 'assistant');
    assert.equal(item.status, 'completed');
    assert.deepEqual(item.content, [
      { type: 'output_text', annotations: [], logprobs: [], text: 'mock reply to: hello there' },
    ]);
    // instructions (8) + input (11) = 19 chars -> 5 tokens; the reply is 5 words.
    assert.deepEqual(res.usage, {
      input_tokens: 5,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 10,
    });
    const recorded = mock.requests[0]!;
    assert.equal(recorded.path, '/v1/responses');
    assert.equal(recorded.headers.authorization, 'Bearer x');
    assert.equal(recorded.body.input, 'hello there');
  });

  test('a function_call round trip: fc_/call_ ids, then function_call_output answers', async () => {
    const res = await openai().responses.create({
      model: 'm',
      tools: [weatherTool, timeTool],
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'weather?' }] }],
    });
    assert.equal(res.status, 'completed');
    assert.equal(res.output_text, '');
    assert.equal(res.output.length, 1);
    const call = res.output[0]!;
    assert.ok(call.type === 'function_call');
    assert.match(call.id ?? '', /^fc_/);
    assert.match(call.call_id, /^call_/);
    assert.equal(call.name, 'get_weather');
    assert.equal(call.status, 'completed');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'x', days: 1 });
    assert.equal(res.usage?.output_tokens, 5);

    const answer = await openai().responses.create({
      model: 'm',
      tools: [weatherTool, timeTool],
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', id: call.id!, call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny 21C' },
      ],
    });
    assert.equal(answer.output_text, 'tool result: sunny 21C');
    assert.equal(answer.output[0]?.type, 'message');
    assert.equal(mock.requests[1]!.body.input[2].type, 'function_call_output');

    const none = await openai().responses.create({ model: 'm', tools: [weatherTool], tool_choice: 'none', input: 'x' });
    assert.equal(none.output_text, 'mock reply to: x');
    const parallel = await openai().responses.create({
      model: 'm',
      tools: [weatherTool, timeTool],
      input: 'in parallel',
    });
    assert.deepEqual(
      parallel.output.map((o) => (o.type === 'function_call' ? o.name : o.type)),
      ['get_weather', 'get_time'],
    );
    const forced = await openai().responses.create({
      model: 'm',
      tools: [weatherTool, timeTool],
      tool_choice: { type: 'function', name: 'get_time' },
      input: 'x',
    });
    assert.deepEqual(
      forced.output.map((o) => (o.type === 'function_call' ? o.name : o.type)),
      ['get_time'],
    );
  });

  test('responses.stream(): ordered events with sequence numbers, usage only in response.completed', async () => {
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    const stream = openai('usage-in=100,usage-cached=40,usage-out=7,usage-reasoning=2').responses.stream({
      model: 'm',
      input: 'abc def',
    });
    stream.on('event', (event) => events.push(event));
    const done = await stream.finalResponse();
    assert.equal(done.output_text, 'mock reply to: abc def');
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...Array<string>(5).fill('response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    const created = events[0]!;
    assert.ok(created.type === 'response.created');
    assert.equal(created.response.status, 'in_progress');
    assert.deepEqual(created.response.output, []);
    assert.equal(created.response.usage, null);
    const completed = events.at(-1)!;
    assert.ok(completed.type === 'response.completed');
    assert.equal(completed.response.id, created.response.id);
    assert.deepEqual(completed.response.usage, {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 40 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 107,
    });
    assert.deepEqual(done.usage, completed.response.usage);
  });

  test('a streamed function call: arguments in 3 deltas, done carries name and arguments', async () => {
    const stream = await openai().responses.create({
      model: 'm',
      stream: true,
      tools: [weatherTool],
      input: 'weather?',
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const added = events.find((e) => e.type === 'response.output_item.added');
    assert.ok(added?.type === 'response.output_item.added' && added.item.type === 'function_call');
    assert.equal(added.item.arguments, '');
    assert.equal(added.item.status, 'in_progress');
    const deltas = events.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : []));
    assert.equal(deltas.length, 3);
    assert.equal(deltas.join(''), '{"city":"x","days":1}');
    const done = events.find((e) => e.type === 'response.function_call_arguments.done');
    assert.ok(done?.type === 'response.function_call_arguments.done');
    assert.equal(done.name, 'get_weather');
    assert.equal(done.item_id, added.item.id);
    assert.equal(events.at(-1)?.type, 'response.completed');
  });

  test('max_output_tokens ends incomplete; no-usage omits usage', async () => {
    const res = await openai('words=10').responses.create({ model: 'm', max_output_tokens: 3, input: 'hi' });
    assert.equal(res.status, 'incomplete');
    assert.deepEqual(res.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(res.output_text, 'w1 w2 w3');
    assert.equal(res.usage?.output_tokens, 3);
    const events: string[] = [];
    const stream = openai('words=10').responses.stream({ model: 'm', max_output_tokens: 3, input: 'hi' });
    stream.on('event', (e) => events.push(e.type));
    const streamed = await stream.finalResponse();
    assert.equal(streamed.status, 'incomplete');
    assert.equal(events.at(-1), 'response.incomplete');

    const bare = await openai('no-usage').responses.create({ model: 'm', input: 'hi' });
    assert.equal(bare.usage, undefined);
  });

  test('errors: scenario status with retry-after, unknown previous_response_id', async () => {
    await assert.rejects(openai('status=429,retry-after=3').responses.create({ model: 'm', input: 'x' }), (err) => {
      assert.ok(err instanceof OpenAI.RateLimitError);
      assert.equal(err.code, 'rate_limit_exceeded');
      assert.equal(err.headers?.get('retry-after'), '3');
      return true;
    });
    await assert.rejects(
      openai().responses.create({ model: 'm', input: 'x', previous_response_id: 'resp_gone' }),
      (err) => {
        assert.ok(err instanceof OpenAI.BadRequestError);
        assert.equal(err.code, 'previous_response_not_found');
        assert.equal(err.param, 'previous_response_id');
        return true;
      },
    );
  });

  test('raw SSE: event names match data.type, no [DONE]; drop-after, malformed and chunk-delay apply', async () => {
    const post = (scenario: string) =>
      fetch(`${scenarioBase(mock, scenario)}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: JSON.stringify({ model: 'm', stream: true, input: 'one two' }),
      });
    const started = Date.now();
    const text = await (await post('chunk-delay=10')).text();
    const frames = text
      .split('\n\n')
      .filter(Boolean)
      .map((f) => /^event: (.+)\ndata: (.+)$/.exec(f));
    assert.ok(frames.every((m) => m && (JSON.parse(m[2]!) as { type: string }).type === m[1]));
    assert.equal(frames.length, 4 + 5 + 4); // created, in_progress, item and part added; 5 deltas; text, part, item done, completed
    assert.ok(!text.includes('[DONE]'));
    assert.ok(Date.now() - started >= 10 * (frames.length - 1) - 10);

    const dropped = await post('drop-after=3');
    const reader = dropped.body!.getReader();
    let received = '';
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += new TextDecoder().decode(value);
      }
    });
    assert.equal(received.match(/^event: /gm)?.length, 3);

    const malformed = await (await post('malformed')).text();
    const bad = malformed
      .split('\n\n')
      .filter(Boolean)
      .filter((f) => {
        try {
          JSON.parse(f.split('\ndata: ')[1]!);
          return false;
        } catch {
          return true;
        }
      });
    assert.equal(bad.length, 1);
  });
});
