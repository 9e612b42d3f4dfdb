/** The mock's Gemini API, driven with the official `@google/genai` SDK (and raw fetch for the wire details). */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type } from '@google/genai';
import { scenarioOrigin, startMockUpstream, type MockUpstream } from '../mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});
after(async () => {
  await mock.close();
});
beforeEach(() => mock.reset());

// The SDK appends /v1beta/models/… (its default API version) to the origin; apiVersion 'v1' gives /v1/models/….
const genai = (scenario = '', apiVersion?: string) =>
  new GoogleGenAI({
    apiKey: 'x',
    httpOptions: { baseUrl: scenarioOrigin(mock, scenario), ...(apiVersion ? { apiVersion } : {}) },
  });

const weather = {
  name: 'get_weather',
  parametersJsonSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
  },
};
const clock = {
  name: 'get_time',
  parameters: {
    type: Type.OBJECT,
    properties: { zone: { type: Type.STRING }, utc: { type: Type.BOOLEAN } },
    required: ['zone', 'utc'],
  },
};

describe('Gemini', () => {
  test('generateContent returns text, STOP and usage; the key arrives as x-goog-api-key', async () => {
    const res = await genai().models.generateContent({
      model: 'gemini-test',
      contents: 'hello there',
      config: { systemInstruction: 'be brief' },
    });
    assert.equal(res.text, 'mock reply to: hello there');
    const candidate = res.candidates![0]!;
    assert.equal(candidate.finishReason, 'STOP');
    assert.equal(candidate.content?.role, 'model');
    assert.deepEqual(candidate.content?.parts, [{ text: 'mock reply to: hello there' }]);
    assert.equal(res.modelVersion, 'gemini-test');
    assert.ok(res.responseId);
    // systemInstruction (8) + text (11) = 19 chars -> 5 tokens; the reply is 5 words.
    assert.deepEqual(res.usageMetadata, {
      promptTokenCount: 5,
      candidatesTokenCount: 5,
      totalTokenCount: 10,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }],
    });
    const recorded = mock.requests[0]!;
    assert.equal(recorded.method, 'POST');
    assert.equal(recorded.path, '/v1beta/models/gemini-test:generateContent');
    assert.equal(recorded.headers['x-goog-api-key'], 'x');
    assert.deepEqual(recorded.body.systemInstruction.parts, [{ text: 'be brief' }]);
  });

  test('generateContentStream: one word per chunk, finishReason and final usage only on the last', async () => {
    const stream = await genai(
      'usage-in=100,usage-cached=40,usage-out=7,usage-reasoning=3',
    ).models.generateContentStream({
      model: 'gemini-test',
      contents: 'abc def',
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(chunks.length, 5);
    assert.equal(chunks.map((c) => c.text).join(''), 'mock reply to: abc def');
    assert.ok(chunks.slice(0, -1).every((c) => c.candidates![0]!.finishReason === undefined));
    assert.ok(
      chunks
        .slice(0, -1)
        .every((c) => c.usageMetadata?.promptTokenCount === 100 && c.usageMetadata.candidatesTokenCount === undefined),
    );
    const last = chunks.at(-1)!;
    assert.equal(last.candidates![0]!.finishReason, 'STOP');
    // Cached tokens are inside promptTokenCount; thoughts are outside candidatesTokenCount but inside the total.
    assert.equal(last.usageMetadata?.promptTokenCount, 100);
    assert.equal(last.usageMetadata?.cachedContentTokenCount, 40);
    assert.equal(last.usageMetadata?.candidatesTokenCount, 4);
    assert.equal(last.usageMetadata?.thoughtsTokenCount, 3);
    assert.equal(last.usageMetadata?.totalTokenCount, 107);
    assert.equal(mock.requests[0]!.path, '/v1beta/models/gemini-test:streamGenerateContent');
    assert.equal(mock.requests[0]!.query.get('alt'), 'sse');
  });

  test('countTokens and models.list', async () => {
    const counted = await genai().models.countTokens({ model: 'gemini-test', contents: 'count these words' });
    assert.equal(counted.totalTokens, 5); // 17 chars
    assert.equal(counted.cachedContentTokenCount, undefined);
    const forced = await genai('usage-in=42,usage-cached=2').models.countTokens({
      model: 'gemini-test',
      contents: 'x',
    });
    assert.equal(forced.totalTokens, 42);
    assert.equal(forced.cachedContentTokenCount, 2);
    assert.equal(mock.requests[0]!.path, '/v1beta/models/gemini-test:countTokens');

    const names = [];
    for await (const model of await genai().models.list()) names.push([model.name, model.supportedActions]);
    assert.deepEqual(names, [
      ['models/mock-small', ['generateContent', 'countTokens']],
      ['models/mock-large', ['generateContent', 'countTokens']],
    ]);
  });

  test('a functionCall round trip: whole call without id, then a functionResponse turn', async () => {
    const tools = [{ functionDeclarations: [weather, clock] }];
    const res = await genai().models.generateContent({ model: 'g', contents: 'weather in Paris?', config: { tools } });
    assert.equal(res.candidates![0]!.finishReason, 'STOP');
    assert.deepEqual(res.functionCalls, [{ name: 'get_weather', args: { city: 'x', days: 1 } }]);
    assert.equal(res.usageMetadata?.candidatesTokenCount, 5);

    const answer = await genai().models.generateContent({
      model: 'g',
      config: { tools },
      contents: [
        { role: 'user', parts: [{ text: 'weather in Paris?' }] },
        res.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny 21C' } } }] },
      ],
    });
    assert.equal(answer.text, 'tool result: sunny 21C');
    assert.equal(answer.functionCalls, undefined);
    const object = await genai().models.generateContent({
      model: 'g',
      contents: [
        { role: 'user', parts: [{ text: 'x' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 21 } } }] },
      ],
    });
    assert.equal(object.text, 'tool result: {"temp":21}');

    // `parameters` uses upper-case OpenAPI types; ANY with one allowed name forces that function.
    const forced = await genai().models.generateContent({
      model: 'g',
      contents: 'time?',
      config: {
        tools,
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_time'] },
        },
      },
    });
    assert.deepEqual(forced.functionCalls, [{ name: 'get_time', args: { zone: 'x', utc: true } }]);
    const none = await genai().models.generateContent({
      model: 'g',
      contents: 'time?',
      config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } } },
    });
    assert.equal(none.text, 'mock reply to: time?');
  });

  test('maxOutputTokens gives MAX_TOKENS; stopSequences cut; apiVersion v1 is served too', async () => {
    const cut = await genai('words=10', 'v1').models.generateContent({
      model: 'g',
      contents: 'hi',
      config: { maxOutputTokens: 3 },
    });
    assert.equal(cut.text, 'w1 w2 w3');
    assert.equal(cut.candidates![0]!.finishReason, 'MAX_TOKENS');
    assert.equal(cut.usageMetadata?.candidatesTokenCount, 3);
    assert.equal(mock.requests[0]!.path, '/v1/models/g:generateContent');

    const stopped = await genai('reply=one two STOP three').models.generateContent({
      model: 'g',
      contents: 'hi',
      config: { stopSequences: ['STOP'] },
    });
    assert.equal(stopped.text, 'one two');
    assert.equal(stopped.candidates![0]!.finishReason, 'STOP');
  });

  test('status=429 raises ApiError 429 with a RESOURCE_EXHAUSTED body; 503 is UNAVAILABLE', async () => {
    await assert.rejects(
      genai('status=429,retry-after=2').models.generateContent({ model: 'g', contents: 'x' }),
      (err) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 429);
        const body = JSON.parse(err.message) as {
          error: { code: number; status: string; message: string; details: unknown[] };
        };
        assert.equal(body.error.code, 429);
        assert.equal(body.error.status, 'RESOURCE_EXHAUSTED');
        assert.equal(body.error.message, 'mock error');
        assert.deepEqual(body.error.details, [
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' },
        ]);
        return true;
      },
    );
    await assert.rejects(genai('status=503').models.generateContentStream({ model: 'g', contents: 'x' }), (err) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 503);
      assert.match(err.message, /"status":"UNAVAILABLE"/);
      return true;
    });
    assert.equal(mock.requests.length, 2, 'the SDK does not retry by default');
  });
});

describe('Gemini over raw fetch', () => {
  const url = (scenario: string, action: string, query = '') =>
    `${scenarioOrigin(mock, scenario)}/v1beta/models/g:${action}${query}`;
  const post = (target: string, headers: Record<string, string> = { 'x-goog-api-key': 'x' }) =>
    fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'one two' }] }] }),
    });

  test('a missing key is 400 INVALID_ARGUMENT; ?key= is accepted', async () => {
    const missing = await post(url('', 'generateContent'), {});
    assert.equal(missing.status, 400);
    const body = (await missing.json()) as { error: { code: number; status: string; details: { reason: string }[] } };
    assert.equal(body.error.code, 400);
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.equal(body.error.details[0]?.reason, 'API_KEY_INVALID');
    assert.equal((await post(url('', 'generateContent', '?key=x'), {})).status, 200);
  });

  test('without alt=sse the stream is one JSON array; with it, bare data lines and no [DONE]', async () => {
    const array = (await (await post(url('', 'streamGenerateContent'))).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    }[];
    assert.equal(array.length, 5);
    assert.equal(array.map((c) => c.candidates[0]!.content.parts[0]!.text).join(''), 'mock reply to: one two');

    const sse = await post(url('no-usage', 'streamGenerateContent', '?alt=sse'));
    assert.match(sse.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = (await sse.text()).split('\n\n').filter(Boolean);
    assert.equal(events.length, 5);
    assert.ok(events.every((e) => e.startsWith('data: ') && !e.includes('event:') && !e.includes('usageMetadata')));
    assert.ok(!events.some((e) => e.includes('[DONE]')));
  });

  test('GET models under /v1beta and /v1 (told from OpenAI by the key); an unknown model is NOT_FOUND', async () => {
    const get = (path: string) => fetch(`${mock.url}${path}`, { headers: { 'x-goog-api-key': 'x' } });
    const list = (await (await get('/v1/models')).json()) as { models: { name: string }[] };
    assert.deepEqual(
      list.models.map((m) => m.name),
      ['models/mock-small', 'models/mock-large'],
    );
    const one = (await (await get('/v1beta/models/mock-large')).json()) as {
      name: string;
      supportedGenerationMethods: string[];
    };
    assert.equal(one.name, 'models/mock-large');
    assert.ok(one.supportedGenerationMethods.includes('generateContent'));
    const unknown = await get('/v1beta/models/nope');
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { status: string } }).error.status, 'NOT_FOUND');
  });

  test('drop-after cuts the SSE stream; malformed breaks the JSON array', async () => {
    const dropped = await post(url('drop-after=2', 'streamGenerateContent', '?alt=sse'));
    const reader = dropped.body!.getReader();
    let received = '';
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += new TextDecoder().decode(value);
      }
    });
    assert.equal(received.match(/^data: /gm)?.length, 2);
    await assert.rejects((await post(url('malformed', 'streamGenerateContent'))).json(), SyntaxError);
  });
});
