/**
 * Structured output to Anthropic lines (docs/protocols.md §6.19): a line made from the Anthropic
 * preset gets the schema natively (`output_config.format`), and the mock, like Anthropic, answers
 * with JSON that fits it, and so does any line serving a Claude model (the model's vendor data asks
 * for it); an Anthropic-compatible line that clears the quirk gets the schema in the system prompt, and the client is told by the `x-tollgate-structured-output`
 * header and the log. Each client's own way of asking: Chat `response_format`, Responses
 * `text.format`, Gemini `responseJsonSchema`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

const NATIVE = 'claude-sonnet-4-6';
const PROMPTED = 'claude-haiku-4-5';
const BY_MODEL = 'claude-opus-4-5';
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, mood: { type: 'string', enum: ['sunny', 'rainy'] } },
  required: ['city', 'mood'],
  additionalProperties: false,
};

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(5);
  await gw.admin.line({
    preset: 'anthropic',
    protocol: 'anthropic',
    name: 'claude',
    baseUrl: scenarioOrigin(mock, ''),
    models: [NATIVE],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  // An Anthropic-compatible service that lacks native structured output: the line clears the
  // quirk the Claude model's vendor data asks for.
  await gw.admin.line({
    name: 'compatible',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: [PROMPTED],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    quirks: { structuredOutput: null },
  });
  // A line made by hand (a company proxy) serving a Claude model: the model's vendor data brings the quirk.
  await gw.admin.line({
    name: 'proxy',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, ''),
    models: [BY_MODEL],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  key = await gw.admin.key('structured');
});

after(async () => {
  await gw.close();
  await mock.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; header: string | null; body: any }> {
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-goog-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, header: res.headers.get('x-tollgate-structured-output'), body: await res.json() };
}

/** What each client format sends to ask for SCHEMA, and where its answer's text is. */
const CLIENTS = {
  chat: {
    ask: (model: string) =>
      post('/v1/chat/completions', {
        model,
        messages: [{ role: 'user', content: 'weather?' }],
        response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: SCHEMA, strict: true } },
      }),
    text: (b: any): string => b.choices[0].message.content,
  },
  responses: {
    ask: (model: string) =>
      post('/v1/responses', {
        model,
        input: 'weather?',
        store: false,
        text: { format: { type: 'json_schema', name: 'weather', schema: SCHEMA, strict: true } },
      }),
    text: (b: any): string => b.output.find((i: any) => i.type === 'message').content[0].text,
  },
  gemini: {
    ask: (model: string) =>
      post(`/v1beta/models/${model}:generateContent`, {
        contents: [{ role: 'user', parts: [{ text: 'weather?' }] }],
        generationConfig: { responseMimeType: 'application/json', responseJsonSchema: SCHEMA },
      }),
    text: (b: any): string => b.candidates[0].content.parts.map((p: any) => p.text ?? '').join(''),
  },
};

for (const [name, client] of Object.entries(CLIENTS)) {
  describe(`${name} client`, () => {
    test('a line with native structured output gets the schema in output_config.format, not the prompt; the answer fits it; no fallback header', async () => {
      const from = mock.requests.length;
      const r = await client.ask(NATIVE);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const sent = mock.requests[from]!.body;
      assert.equal(sent.output_config.format.type, 'json_schema');
      assert.deepEqual(sent.output_config.format.schema.required, ['city', 'mood']);
      assert.equal(sent.output_config.format.schema.additionalProperties, false);
      assert.doesNotMatch(JSON.stringify(sent.system ?? ''), /JSON Schema/);
      const answer = JSON.parse(client.text(r.body)) as { city: unknown; mood: unknown };
      assert.equal(typeof answer.city, 'string');
      assert.ok(['sunny', 'rainy'].includes(answer.mood as string), `an enum value: ${String(answer.mood)}`);
      assert.equal(r.header, null);
    });

    test('a line without it gets the schema in the system prompt, and the client and the log are told', async () => {
      const from = mock.requests.length;
      const r = await client.ask(PROMPTED);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const sent = mock.requests[from]!.body;
      assert.equal(sent.output_config, undefined);
      assert.match(JSON.stringify(sent.system), /conform to this JSON Schema/);
      assert.equal(r.header, 'prompt');
      const row = (await gw.admin.logs({ limit: 1 }))[0]!;
      assert.match(row.notes ?? '', /structured output \(json_schema\) only asked for in the system prompt/);
    });
  });
}

test("a line made without the preset gets native structured output from the Claude model's own vendor data", async () => {
  const from = mock.requests.length;
  const r = await CLIENTS.chat.ask(BY_MODEL);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(mock.requests[from]!.body.output_config.format.type, 'json_schema');
  assert.equal(r.header, null);
});

test('a streamed answer carries the header too', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({
      model: PROMPTED,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_object' },
    }),
  });
  assert.equal(res.headers.get('x-tollgate-structured-output'), 'prompt');
  await res.text();
  // The official SDK sees it on the raw response.
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const { response } = await openai.chat.completions
    .create({ model: PROMPTED, messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } })
    .withResponse();
  assert.equal(response.headers.get('x-tollgate-structured-output'), 'prompt');
});
