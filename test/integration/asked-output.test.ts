/**
 * Output a client asks for that Tollgate cannot bring back across formats (audio, images,
 * log probabilities) is refused with a 400 in the client's own shape, naming the parameter, on a
 * translated line; on a line of the client's own format (the pass-through) it is carried and
 * served. Never a 200 without the asked-for part (docs/protocols.md §6.18).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError, GoogleGenAI, Modality } from '@google/genai';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;
let openai: OpenAI;
let google: GoogleGenAI;

/** Served by an Anthropic line: every client format is translated. */
const TRANSLATED = 'claude-haiku-4-5';

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.line({ name: 'claude', protocol: 'anthropic', baseUrl: mock.url, models: [TRANSLATED] });
  await gw.admin.line({ name: 'openai', baseUrl: `${mock.url}/v1`, models: ['gpt-4o'] });
  await gw.admin.line({
    name: 'responses',
    protocol: 'openai-responses',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-5.4'],
  });
  await gw.admin.line({
    name: 'google',
    protocol: 'gemini',
    baseUrl: scenarioOrigin(mock, ''),
    models: ['gemini-2.5-flash'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  key = await gw.admin.key('asked-output');
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
});

after(async () => {
  await gw.close();
  await mock.close();
});

async function openaiRefusal(p: Promise<unknown>, param: string): Promise<void> {
  const err = await p.then(
    () => assert.fail(`expected a 400 naming ${param}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OpenAI.BadRequestError, `a 400, got ${String(err)}`);
  assert.equal(err.param, param);
  assert.equal(err.code, 'unsupported_value');
  assert.match(err.message, new RegExp(`${param.replace('.', '\\.')}: .* cannot be produced for this model`));
  const row = (await gw.admin.logs({ limit: 1 }))[0]!;
  assert.equal(row.status, 400, 'the refusal is in the log');
  assert.equal(row.costMicro, 0, 'and costs nothing');
}

describe('Chat Completions client', () => {
  const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
  test('audio output, on a translated line: 400 naming modalities (or audio)', async () => {
    await openaiRefusal(
      openai.chat.completions.create({
        ...ask,
        model: TRANSLATED,
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
      }),
      'modalities',
    );
    await openaiRefusal(
      openai.chat.completions.create({ ...ask, model: TRANSLATED, audio: { voice: 'alloy', format: 'wav' } }),
      'audio',
    );
  });
  test('logprobs and top_logprobs, on a translated line: 400 naming the parameter, streaming too', async () => {
    await openaiRefusal(
      openai.chat.completions.create({ ...ask, model: TRANSLATED, logprobs: true, top_logprobs: 2 }),
      'logprobs',
    );
    await openaiRefusal(
      openai.chat.completions.create({ ...ask, model: TRANSLATED, top_logprobs: 2, stream: true }),
      'top_logprobs',
    );
  });
  test('on a line of its own format the request passes through as asked', async () => {
    const from = mock.requests.length;
    const r = await openai.chat.completions.create({ ...ask, model: 'gpt-4o', logprobs: true, top_logprobs: 2 });
    assert.ok(r.choices[0]!.message.content);
    assert.equal(mock.requests[from]!.body.logprobs, true, 'the upstream was asked');
  });
});

describe('Responses client', () => {
  test('top_logprobs and the logprobs include, on a translated line: 400 naming the parameter', async () => {
    await openaiRefusal(openai.responses.create({ model: TRANSLATED, input: 'hi', top_logprobs: 3 }), 'top_logprobs');
    await openaiRefusal(
      openai.responses.create({ model: TRANSLATED, input: 'hi', include: ['message.output_text.logprobs'] }),
      'include',
    );
  });
  test('on a Responses line (store:false, the pass-through) they pass through', async () => {
    const from = mock.requests.length;
    await openai.responses.create({ model: 'gpt-5.4', input: 'hi', top_logprobs: 3, store: false });
    assert.equal(mock.requests[from]!.body.top_logprobs, 3);
  });
});

describe('Gemini client', () => {
  async function geminiRefusal(p: Promise<unknown>, param: string): Promise<void> {
    const err = await p.then(
      () => assert.fail(`expected a 400 naming ${param}`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError, `an ApiError, got ${String(err)}`);
    assert.equal(err.status, 400);
    assert.match(err.message, /INVALID_ARGUMENT/);
    assert.ok(err.message.includes(`${param}: `), `the message names ${param}: ${err.message}`);
  }
  const contents = 'draw a cat';
  test('image or audio output (responseModalities) and logprobs, on a translated line: 400 naming the parameter', async () => {
    await geminiRefusal(
      google.models.generateContent({
        model: TRANSLATED,
        contents,
        config: { responseModalities: [Modality.TEXT, Modality.IMAGE] },
      }),
      'generationConfig.responseModalities',
    );
    await geminiRefusal(
      google.models.generateContent({ model: TRANSLATED, contents, config: { responseModalities: [Modality.AUDIO] } }),
      'generationConfig.responseModalities',
    );
    await geminiRefusal(
      google.models.generateContent({ model: TRANSLATED, contents, config: { responseLogprobs: true, logprobs: 2 } }),
      'generationConfig.responseLogprobs',
    );
    await geminiRefusal(
      google.models.generateContentStream({ model: TRANSLATED, contents, config: { logprobs: 2 } }),
      'generationConfig.logprobs',
    );
  });
  test('on a Gemini line they pass through', async () => {
    const from = mock.requests.length;
    await google.models.generateContent({
      model: 'gemini-2.5-flash',
      contents,
      config: { responseModalities: [Modality.TEXT, Modality.IMAGE], responseLogprobs: true },
    });
    assert.deepEqual(mock.requests[from]!.body.generationConfig.responseModalities, ['TEXT', 'IMAGE']);
  });
});
