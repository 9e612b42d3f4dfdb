/**
 * Anthropic API versions on purpose (docs/protocols.md §2.1): the pass-through keeps the client's
 * anthropic-version and anthropic-beta as they came, and a translated request goes with its line's
 * version, less what that version refuses. The mock enforces 2026-10-21 as Anthropic does.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(5);
  const auth = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  const made = await gw.admin.line({
    name: 'new',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: ['claude-sonnet-4-6'],
    anthropicVersion: '2026-10-21',
    ...auth,
  });
  assert.equal(made.anthropicVersion, '2026-10-21');
  const old = await gw.admin.line({
    name: 'old',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: ['claude-haiku-4-5'],
    ...auth,
  });
  assert.equal(old.anthropicVersion, '2023-06-01', 'the view shows the default a line without its own goes with');
  key = await gw.admin.key('k');
});

after(async () => {
  await gw.close();
  await mock.close();
});

const last = () => mock.requests.at(-1)!;

test('the current @anthropic-ai/sdk sends 2026-10-21; the pass-through keeps it and the betas, and the pair works', async () => {
  const client = new Anthropic({
    baseURL: gw.url,
    apiKey: key,
    maxRetries: 0,
    defaultHeaders: { 'anthropic-beta': 'context-management-2025-06-27,some-future-beta-2027-01-01' },
  });
  for (const stream of [false, true]) {
    const params = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const m = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(last().headers['anthropic-version'], '2026-10-21');
    assert.equal(last().headers['anthropic-beta'], 'context-management-2025-06-27,some-future-beta-2027-01-01');
  }
  // The old-version line takes the client's version too: the pass-through sends what the client sent.
  await client.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(last().headers['anthropic-version'], '2026-10-21');
});

test('the mock refuses what 2026-10-21 refuses, as the upstream would: the client sees its own 400', async () => {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2026-10-21', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      temperature: 1,
      messages: [{ role: 'user', content: 'x' }],
    }),
  });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /temperature: Extra inputs are not permitted with anthropic-version 2026-10-21/);
});

test("translated into a 2026-10-21 line: the line's version, and no sampling fields, with a note each", async () => {
  const oai = gw.openai(key);
  for (const stream of [false, true]) {
    const params = {
      model: 'claude-sonnet-4-6',
      temperature: 0.7,
      top_p: 0.9,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    if (stream) {
      const s = await oai.chat.completions.create({ ...params, stream: true });
      for await (const _chunk of s) void _chunk;
    } else assert.ok((await oai.chat.completions.create(params)).choices[0]!.message.content);
    assert.equal(last().headers['anthropic-version'], '2026-10-21');
    assert.equal(last().body.temperature, undefined);
    assert.equal(last().body.top_p, undefined);
  }
  const row = (await gw.admin.logs({ model: 'claude-sonnet-4-6', limit: 1 }))[0]!;
  assert.equal(row.status, 200);
  assert.match(row.notes ?? '', /dropped temperature: anthropic-version 2026-10-21 refuses it/);
  assert.match(row.notes ?? '', /dropped top_p: anthropic-version 2026-10-21 refuses it/);
});

test("Gemini CLI's sampling defaults and a model turn's PDF, to a 2026-10-21 line: no 400", async () => {
  const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
  const r = await genai.models.generateContent({
    model: 'claude-sonnet-4-6',
    contents: [
      { role: 'user', parts: [{ text: 'make a pdf' }] },
      { role: 'model', parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } }] },
      { role: 'user', parts: [{ text: 'thanks' }] },
    ],
    config: { temperature: 1, topP: 0.95, topK: 64 },
  });
  assert.ok(r.text);
  const sent = last().body;
  assert.deepEqual([sent.temperature, sent.top_p, sent.top_k], [undefined, undefined, undefined]);
  assert.ok(!JSON.stringify(sent.messages).includes('"document"'));
  const row = (await gw.admin.logs({ model: 'claude-sonnet-4-6', limit: 1 }))[0]!;
  assert.match(row.notes ?? '', /dropped a document block in an assistant message/);
  assert.match(row.notes ?? '', /dropped top_k/);
});

test('a line without a version: 2023-06-01 and the sampling fields as the client gave them', async () => {
  await gw.openai(key).chat.completions.create({
    model: 'claude-haiku-4-5',
    temperature: 0.5,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(last().headers['anthropic-version'], '2023-06-01');
  assert.equal(last().body.temperature, 0.5);
});

test('the mock holds 2026-10-21 to its rules on the translated path too: without the line version, a 400', async () => {
  // The same request with the new version and the old rules is what the line version prevents.
  const res = await fetch(`${scenarioOrigin(mock, '')}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'x', 'anthropic-version': '2026-10-21', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }] }],
    }),
  });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /citations are not permitted on user text/);
});

test('the version is set and taken back through the admin API; only anthropic lines have one', async () => {
  const set = await gw.admin.call('updateLine', { params: { name: 'old' }, body: { anthropicVersion: '2026-10-21' } });
  assert.equal(set.line.anthropicVersion, '2026-10-21');
  const back = await gw.admin.call('updateLine', { params: { name: 'old' }, body: { anthropicVersion: null } });
  assert.equal(back.line.anthropicVersion, '2023-06-01');
  const refused = await gw.admin
    .call('addLine', {
      body: {
        name: 'chatty',
        protocol: 'openai-chat',
        baseUrl: `${mock.url}/v1`,
        models: ['gpt-4o-mini'],
        anthropicVersion: '2026-10-21',
      },
    })
    .then(
      () => undefined,
      (e: { status: number; message: string }) => e,
    );
  assert.equal(refused?.status, 400);
  assert.match(refused!.message, /anthropicVersion is for anthropic lines/);
  const preset = await gw.admin.call('addLine', {
    body: { preset: 'anthropic', name: 'from-preset', baseUrl: mock.url, models: ['claude-opus-4-8'] },
  });
  assert.equal(preset.line.anthropicVersion, '2023-06-01', "the Anthropic preset's default");
});
