import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
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
const genai = (scenario = '') =>
  new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: scenarioOrigin(mock, scenario) } });

/** Reads a fetch body until it ends or the connection breaks; returns the text and the error, if any. */
async function readUntilBreak(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Anthropic messages', () => {
  test('messages.create returns a real message with uncached input usage', async () => {
    const msg = await anthropic().messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.match(msg.id, /^msg_/);
    assert.equal(msg.type, 'message');
    assert.equal(msg.model, 'claude-test');
    assert.deepEqual(msg.content, [{ type: 'text', text: 'mock reply to: hello there' }]);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.stop_sequence, null);
    // system (8) + user (11) = 19 chars -> 5 tokens; the reply is 5 words.
    assert.equal(msg.usage.input_tokens, 5);
    assert.equal(msg.usage.output_tokens, 5);
    assert.equal(msg.usage.cache_read_input_tokens, 0);
    assert.equal(msg.usage.cache_creation_input_tokens, 0);

    const headers = mock.requests[0]!.headers;
    assert.ok(headers['anthropic-version'], 'anthropic-version sent');
    assert.ok(headers['x-api-key'] ?? headers.authorization, 'a credential sent');
  });

  test('messages.stream().finalMessage() with forced cache usage and max_tokens truncation', async () => {
    const events: string[] = [];
    const stream = anthropic('words=6,usage-in=100,usage-cached=30,usage-cache-write=20,usage-out=3').messages.stream({
      model: 'claude-test',
      max_tokens: 3,
      messages: [{ role: 'user', content: 'hi' }],
    });
    stream.on('streamEvent', (event) => events.push(event.type));
    const msg = await stream.finalMessage();
    assert.deepEqual(msg.content, [{ type: 'text', text: 'w1 w2 w3' }]);
    assert.equal(msg.stop_reason, 'max_tokens');
    assert.equal(msg.usage.input_tokens, 50, 'input_tokens excludes cache reads and writes');
    assert.equal(msg.usage.cache_read_input_tokens, 30);
    assert.equal(msg.usage.cache_creation_input_tokens, 20);
    assert.equal(msg.usage.output_tokens, 3);
    // The SDK swallows the `ping` the mock sends after message_start.
    assert.deepEqual(events, [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  test('stop_sequences cut the reply and are reported', async () => {
    const msg = await anthropic('reply=one two STOP three').messages.create({
      model: 'm',
      max_tokens: 50,
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.deepEqual(msg.content, [{ type: 'text', text: 'one two' }]);
    assert.equal(msg.stop_reason, 'stop_sequence');
    assert.equal(msg.stop_sequence, 'STOP');
  });

  test('tool_use, streamed and not, then a tool_result turn', async () => {
    const tools = [
      {
        name: 'lookup',
        input_schema: { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] },
      },
    ];
    const msg = await anthropic().messages.create({
      model: 'm',
      max_tokens: 50,
      tools,
      messages: [{ role: 'user', content: 'find it' }],
    });
    assert.equal(msg.stop_reason, 'tool_use');
    const block = msg.content[0]!;
    assert.ok(block.type === 'tool_use', block.type);
    assert.match(block.id, /^toolu_/);
    assert.equal(block.name, 'lookup');
    assert.deepEqual(block.input, { q: 'x' });

    const deltas: string[] = [];
    const stream = anthropic().messages.stream({
      model: 'm',
      max_tokens: 50,
      tools,
      messages: [{ role: 'user', content: 'find it' }],
    });
    stream.on('streamEvent', (e) => {
      if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') deltas.push(e.delta.partial_json);
    });
    const streamed = await stream.finalMessage();
    const streamedBlock = streamed.content[0]!;
    assert.ok(streamedBlock.type === 'tool_use', streamedBlock.type);
    assert.deepEqual(streamedBlock.input, { q: 'x' });
    assert.equal(deltas.length, 3);
    assert.equal(deltas.join(''), '{"q":"x"}');

    const answer = await anthropic().messages.create({
      model: 'm',
      max_tokens: 50,
      tools,
      messages: [
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: msg.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: block.id, content: 'found' }] },
      ],
    });
    assert.deepEqual(answer.content, [{ type: 'text', text: 'tool result: found' }]);
    assert.equal(answer.stop_reason, 'end_turn');
  });

  test('status=529 gives an overloaded_error body; missing anthropic-version gives 400', async () => {
    await assert.rejects(
      anthropic('status=529').messages.create({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      }),
      (err) => {
        assert.ok(err instanceof Anthropic.APIError, String(err));
        assert.equal(err.status, 529);
        assert.deepEqual((err.error as { error: unknown }).error, { type: 'overloaded_error', message: 'mock error' });
        return true;
      },
    );
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'x', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [] }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { type: string; error: { type: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
  });
});

describe('every wire format', () => {
  // Per-format details are tested in mock/openai-responses.test.ts and mock/gemini.test.ts.
  const ask = async (scenario: string) => {
    const [system, user] = ['be brief', 'hello there'];
    const chat = await openai(scenario).chat.completions.create({
      model: 'm',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    });
    const messages = await anthropic(scenario).messages.create({
      model: 'm',
      max_tokens: 50,
      system,
      messages: [{ role: 'user', content: user }],
    });
    const responses = await openai(scenario).responses.create({ model: 'm', instructions: system, input: user });
    const gemini = await genai(scenario).models.generateContent({
      model: 'm',
      contents: user,
      config: { systemInstruction: system },
    });
    return { chat, messages, responses, gemini };
  };

  test('the same conversation gets the same reply and default usage in all four', async () => {
    const { chat, messages, responses, gemini } = await ask('');
    const block = messages.content[0]!;
    assert.ok(block.type === 'text', block.type);
    const texts = [chat.choices[0]!.message.content, block.text, responses.output_text, gemini.text];
    assert.deepEqual(texts, Array<string>(4).fill('mock reply to: hello there'));
    // 19 characters of prompt -> 5 tokens; 5 words of reply -> 5 tokens.
    assert.deepEqual(
      [
        chat.usage?.prompt_tokens,
        messages.usage.input_tokens,
        responses.usage?.input_tokens,
        gemini.usageMetadata?.promptTokenCount,
      ],
      [5, 5, 5, 5],
    );
    assert.deepEqual(
      [
        chat.usage?.completion_tokens,
        messages.usage.output_tokens,
        responses.usage?.output_tokens,
        gemini.usageMetadata?.candidatesTokenCount,
      ],
      [5, 5, 5, 5],
    );
    assert.deepEqual(
      mock.requests.map((r) => r.path),
      ['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1beta/models/m:generateContent'],
    );
  });

  test('one forced usage scenario, reported the way each vendor counts cache and reasoning', async () => {
    const { chat, messages, responses, gemini } = await ask(
      'usage-in=100,usage-cached=30,usage-cache-write=20,usage-out=7,usage-reasoning=2',
    );
    assert.deepEqual(
      [
        chat.usage?.prompt_tokens,
        chat.usage?.prompt_tokens_details?.cached_tokens,
        chat.usage?.completion_tokens,
        chat.usage?.completion_tokens_details?.reasoning_tokens,
      ],
      [100, 30, 7, 2],
    );
    const m = messages.usage;
    assert.deepEqual(
      [m.input_tokens, m.cache_read_input_tokens, m.cache_creation_input_tokens, m.output_tokens],
      [50, 30, 20, 7],
    );
    const r = responses.usage!;
    assert.deepEqual(
      [
        r.input_tokens,
        r.input_tokens_details.cached_tokens,
        r.output_tokens,
        r.output_tokens_details.reasoning_tokens,
        r.total_tokens,
      ],
      [100, 30, 7, 2, 107],
    );
    const g = gemini.usageMetadata!;
    assert.deepEqual(
      [g.promptTokenCount, g.cachedContentTokenCount, g.candidatesTokenCount, g.thoughtsTokenCount, g.totalTokenCount],
      [100, 30, 5, 2, 107],
    );
  });
});

describe('failure scenarios over raw fetch', () => {
  const chatBody = (stream: boolean) =>
    JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'one two three' }] });
  const post = (scenario: string, body: string, signal?: AbortSignal) =>
    fetch(`${scenarioBase(mock, scenario)}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: signal ?? null,
    });

  test('drop-after=2 cuts a stream after two events and a JSON body halfway', async () => {
    const res = await post('drop-after=2', chatBody(true));
    assert.equal(res.status, 200);
    const { text, error } = await readUntilBreak(res);
    assert.ok(error, 'the body must end in a network error, not a clean end');
    assert.equal(text.match(/^data: /gm)?.length, 2);
    assert.ok(!text.includes('[DONE]'), 'no [DONE] after a drop');

    const whole = await post('drop-after=2', chatBody(false));
    assert.equal(whole.status, 200);
    await assert.rejects(whole.text());
    assert.equal(mock.aborted, 0, 'a deliberate drop is not a client abort');
  });

  test('malformed sends invalid JSON in a body and in one SSE event', async () => {
    const res = await post('malformed', chatBody(false));
    assert.equal(res.status, 200);
    await assert.rejects(res.json(), SyntaxError);

    const stream = await post('malformed', chatBody(true));
    const events = (await stream.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    const bad = events.filter((data) => {
      try {
        JSON.parse(data);
        return false;
      } catch {
        return data !== '[DONE]';
      }
    });
    assert.equal(bad.length, 1);
    assert.equal(events.at(-1), '[DONE]');
  });

  test('delay holds the headers back; a stall is counted as aborted when the client gives up', async () => {
    const started = Date.now();
    const res = await post('delay=150', chatBody(false));
    assert.ok(Date.now() - started >= 140, 'the headers waited for the delay');
    assert.equal(res.status, 200);

    await assert.rejects(post('delay=999999999999', chatBody(false), AbortSignal.timeout(50)));
    await waitFor(() => mock.aborted === 1 && mock.inFlight() === 0, 'the abort to be counted');

    const controller = new AbortController();
    const stream = await post('chunk-delay=60000', chatBody(true), controller.signal);
    const reader = stream.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /^data: /);
    controller.abort();
    await waitFor(() => mock.aborted === 2 && mock.inFlight() === 0, 'the mid-stream abort to be counted');
  });

  test('chunk-delay spaces the streamed events', async () => {
    const started = Date.now();
    const res = await post('chunk-delay=25', chatBody(true));
    const text = await res.text();
    const events = text.match(/^data: /gm)?.length ?? 0;
    assert.equal(events, 9); // role + 6 words + finish + [DONE]
    assert.ok(Date.now() - started >= 25 * (events - 1) - 10, 'the events were spaced');
  });

  test('first-chunk-delay sends the headers, then holds the first event back', async () => {
    const res = await post('first-chunk-delay=150', chatBody(true));
    const headersAt = performance.now();
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    // Only a lower bound: a busy machine makes the gap longer, never shorter.
    assert.ok(performance.now() - headersAt >= 140, 'the first event came after the pause');
    const decoder = new TextDecoder();
    let text = decoder.decode(first.value, { stream: true });
    for (let r = await reader.read(); !r.done; r = await reader.read())
      text += decoder.decode(r.value, { stream: true });
    assert.match(text, /^data: /);
    assert.equal(text.match(/^data: /gm)?.length, 9, 'every event came, after the pause'); // role + 6 words + finish + [DONE]
  });

  test('an unknown scenario key is a 400 naming the key', async () => {
    const res = await post('stauts=500', chatBody(false));
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /unknown key "stauts"/);
  });

  // The stalled request would answer after 16 minutes: if close() waited for it, the timeout would fail the test.
  test('close() destroys open sockets and does not wait for stalled requests', { timeout: 10_000 }, async () => {
    const own = await startMockUpstream();
    const pending = fetch(`${own.url}/s/delay=999999/v1/models`).catch((err: unknown) => err);
    await waitFor(() => own.inFlight() === 1, 'the request to arrive');
    assert.equal(own.openSockets(), 1);
    await own.close();
    assert.ok((await pending) instanceof Error, 'the stalled request failed');
    assert.equal(own.openSockets(), 0);
  });
});
