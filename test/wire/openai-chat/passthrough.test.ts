/** The openai-chat pass-through: the request as it goes up, and the tap reading the answer stream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { ChatStreamTap, chatPassthrough, type ChatBody } from '../../../gateway/wire/openai-chat/passthrough.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
const USAGE = JSON.stringify({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } },
});

describe('ChatStreamTap', () => {
  test('reads usage from the usage chunk, the end from [DONE], and what was produced from the deltas', () => {
    const tap = new ChatStreamTap(true);
    for (const data of [
      chunk({ role: 'assistant', content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }, 'tool_calls'),
    ]) {
      assert.equal(tap.onEvent({ data }), true);
    }
    assert.equal(tap.usage(), undefined);
    assert.equal(tap.onEvent({ data: USAGE }), true, 'the client asked for usage: it gets the chunk');
    assert.equal(tap.complete(), false);
    assert.equal(tap.onEvent({ data: '[DONE]' }), true);
    assert.equal(tap.complete(), true);
    assert.deepEqual(tap.usage(), { ...emptyUsage(), inputTokens: 10, cacheReadTokens: 2, outputTokens: 3 });
    assert.equal(tap.produced(), 'Hellof{}');
    assert.equal(tap.error(), null);
  });

  test('drops the usage chunk when only Tollgate asked for it', () => {
    const tap = new ChatStreamTap(false);
    assert.equal(tap.onEvent({ data: chunk({ content: 'x' }, 'stop') }), true);
    assert.equal(tap.onEvent({ data: USAGE }), false);
    assert.equal(tap.usage()?.outputTokens, 3);
  });

  test('an error chunk is an in-band upstream error', () => {
    const tap = new ChatStreamTap(false);
    tap.onEvent({ data: JSON.stringify({ error: { message: 'overloaded' } }) });
    assert.equal(tap.error()?.code, 'upstream_stream_error');
    assert.match(tap.error()!.message, /overloaded/);
  });

  test('a truncated event is refused', () => {
    assert.throws(() => new ChatStreamTap(false).onEvent({ data: '{"id":"c","choices":[' }), SyntaxError);
  });

  test('repairTail: a stream that finished and reported usage but lost its [DONE] is whole; any other is not', () => {
    const whole = new ChatStreamTap(false);
    whole.onEvent({ data: chunk({ content: 'x' }, 'stop') });
    whole.onEvent({ data: USAGE });
    assert.equal(whole.repairTail(), 'data: [DONE]\n\n');
    const noUsage = new ChatStreamTap(false);
    noUsage.onEvent({ data: chunk({ content: 'x' }, 'stop') });
    assert.equal(noUsage.repairTail(), undefined);
    const unfinished = new ChatStreamTap(false);
    unfinished.onEvent({ data: chunk({ content: 'x' }) });
    unfinished.onEvent({ data: USAGE });
    assert.equal(unfinished.repairTail(), undefined);
  });
});

describe('chatPassthrough', () => {
  const body: ChatBody = { model: 'gpt-4o', messages: [{ content: 'hi' }] };
  const raw = ' {"model":"gpt-4o","messages":[{"content":"hi"}]}';

  test("sends the client's own bytes when nothing changes", () => {
    const up = chatPassthrough(body, raw).request('gpt-4o');
    assert.equal(up.path, '/chat/completions');
    assert.equal(up.body, raw);
    assert.deepEqual(up.headers, {});
  });

  test('rewrites the model for a line that knows it by another id, and asks a stream for usage', () => {
    assert.deepEqual(JSON.parse(chatPassthrough(body, raw).request('vendor/gpt-4o').body), {
      ...body,
      model: 'vendor/gpt-4o',
    });
    const streamed = { ...body, stream: true, stream_options: { include_usage: false } };
    const up = JSON.parse(chatPassthrough(streamed, JSON.stringify(streamed)).request('gpt-4o').body) as ChatBody;
    assert.deepEqual(up.stream_options, { include_usage: true });
  });

  test('a reasoningField line gets reasoning_content on every assistant message without one, with a note; others get the bytes as they came', () => {
    const history: ChatBody = {
      model: 'deepseek-v4-flash',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
        { role: 'assistant', content: 'done', reasoning_content: 'mine' },
      ] as unknown as ChatBody['messages'],
    };
    const raw2 = JSON.stringify(history);
    const up = chatPassthrough(history, raw2).request('deepseek-v4-flash', { reasoningField: 'reasoning_content' });
    const sent = JSON.parse(up.body) as { messages: { reasoning_content?: string }[] };
    assert.deepEqual(
      sent.messages.map((m) => m.reasoning_content),
      [undefined, '', undefined, 'mine'],
    );
    assert.match(up.notes?.[0] ?? '', /empty reasoning_content put on 1 assistant message/);
    const plain = chatPassthrough(history, raw2).request('deepseek-v4-flash');
    assert.equal(plain.body, raw2);
    assert.equal(plain.notes, undefined);
  });

  test("OpenRouter's reasoning field: a client's reasoning_content moves there, an assistant message without any gets an empty one", () => {
    const history: ChatBody = {
      model: 'deepseek/deepseek-v4-flash',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'thought',
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
        { role: 'assistant', content: 'done' },
      ] as unknown as ChatBody['messages'],
    };
    const up = chatPassthrough(history, JSON.stringify(history)).request('deepseek/deepseek-v4-flash', {
      reasoningField: 'reasoning',
    });
    const sent = JSON.parse(up.body) as { messages: { reasoning?: string; reasoning_content?: string }[] };
    assert.deepEqual(
      sent.messages.map((m) => [m.reasoning, m.reasoning_content]),
      [
        [undefined, undefined],
        ['thought', undefined],
        [undefined, undefined],
        ['', undefined],
      ],
    );
    assert.deepEqual(up.notes, [
      'openai-chat: empty reasoning put on 1 assistant message(s) without one, as the vendor requires',
      'openai-chat: reasoning_content of 1 assistant message(s) sent as reasoning',
    ]);
  });

  test('one output-limit field goes upstream: the one the line takes, with the limit billing reserved for', () => {
    const sent = (b: Record<string, unknown>, quirk?: 'max_tokens' | 'max_completion_tokens', limit?: number) => {
      const up = chatPassthrough(b as ChatBody, JSON.stringify(b)).request(
        'gpt-4o',
        quirk ? { maxTokensField: quirk } : undefined,
        limit,
      );
      const out = JSON.parse(up.body) as Record<string, unknown>;
      return [out.max_tokens, out.max_completion_tokens];
    };
    const both = { ...body, max_tokens: 100, max_completion_tokens: 200 };
    // Billing reads max_completion_tokens first: that limit is sent, in the line's field only.
    assert.deepEqual(sent(both), [200, undefined]);
    assert.deepEqual(sent(both, 'max_completion_tokens'), [undefined, 200]);
    assert.deepEqual(sent(both, 'max_tokens'), [200, undefined]);
    // A client's field the line does not take is renamed.
    assert.deepEqual(sent({ ...body, max_tokens: 100 }, 'max_completion_tokens'), [undefined, 100]);
    assert.deepEqual(sent({ ...body, max_completion_tokens: 100 }, 'max_tokens'), [100, undefined]);
    // A limit Tollgate sets (the client set none) replaces a null the client sent in the other field.
    assert.deepEqual(sent({ ...body, max_tokens: null }, 'max_completion_tokens', 300), [undefined, 300]);
    // One field and no quirk: the client's own bytes.
    const one = { ...body, max_completion_tokens: 100 };
    assert.equal(chatPassthrough(one, JSON.stringify(one)).request('gpt-4o').body, JSON.stringify(one));
  });

  test('reads usage and what was produced from a whole answer', () => {
    const p = chatPassthrough(body, raw);
    const answer = {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'hello',
            tool_calls: [{ function: { name: 'f', arguments: '{"a":1}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    };
    assert.deepEqual(p.readAnswer(answer), {
      usage: { ...emptyUsage(), inputTokens: 5, outputTokens: 2 },
      produced: 'hellof{"a":1}',
    });
    assert.deepEqual(p.readAnswer({ choices: [{ message: { content: 'x' } }] }), { usage: undefined, produced: 'x' });
  });
});
