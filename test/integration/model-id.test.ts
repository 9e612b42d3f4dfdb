/**
 * One rule for the model id an answer carries, on every path (docs/protocols.md §6.20): the id the
 * client asked for, never the upstream's own name for it. Each line here knows its model by
 * another id (modelMap), which the mock echoes back, as vendors echo a dated snapshot id.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(5);
  const auth = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  await gw.admin.line({
    name: 'chat',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o'],
    modelMap: { 'gpt-4o': 'vendor/gpt-4o-2024-08-06' },
    ...auth,
  });
  await gw.admin.line({
    name: 'responses',
    protocol: 'openai-responses',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-5.4'],
    modelMap: { 'gpt-5.4': 'gpt-5.4-2026-03-05' },
    ...auth,
  });
  await gw.admin.line({
    name: 'claude',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: ['claude-haiku-4-5'],
    modelMap: { 'claude-haiku-4-5': 'claude-haiku-4-5-20251001' },
    ...auth,
  });
  await gw.admin.line({
    name: 'google',
    protocol: 'gemini',
    baseUrl: mock.url,
    models: ['gemini-2.5-flash'],
    modelMap: { 'gemini-2.5-flash': 'gemini-2.5-flash-001' },
    ...auth,
  });
  const key = await gw.admin.key('model-id');
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
});

after(async () => {
  await gw.close();
  await mock.close();
});

const hi = [{ role: 'user' as const, content: 'hi' }];

test('Chat Completions: the requested id, passed through and translated, JSON and stream', async () => {
  for (const model of ['gpt-4o', 'claude-haiku-4-5']) {
    assert.equal((await openai.chat.completions.create({ model, messages: hi })).model, model);
    const chunks: string[] = [];
    for await (const c of await openai.chat.completions.create({ model, messages: hi, stream: true }))
      chunks.push(c.model);
    assert.ok(chunks.length > 0 && chunks.every((m) => m === model), `every chunk says ${model}: ${chunks.join(',')}`);
  }
  assert.equal(
    mock.requests.find((r) => r.body.model === 'vendor/gpt-4o-2024-08-06') !== undefined,
    true,
    'the upstream got its own id',
  );
});

test('Messages: the requested id, passed through and translated, JSON and stream', async () => {
  for (const model of ['claude-haiku-4-5', 'gpt-4o']) {
    assert.equal((await anthropic.messages.create({ model, max_tokens: 64, messages: hi })).model, model);
    assert.equal(
      (await anthropic.messages.stream({ model, max_tokens: 64, messages: hi }).finalMessage()).model,
      model,
    );
  }
});

test('Responses: the requested id, passed through (store:false) and translated, JSON and stream', async () => {
  for (const model of ['gpt-5.4', 'claude-haiku-4-5']) {
    assert.equal((await openai.responses.create({ model, input: 'hi', store: false })).model, model);
    assert.equal((await openai.responses.stream({ model, input: 'hi', store: false }).finalResponse()).model, model);
  }
});

test('Gemini: the requested id in modelVersion, passed through and translated, JSON and stream', async () => {
  for (const model of ['gemini-2.5-flash', 'claude-haiku-4-5']) {
    assert.equal((await google.models.generateContent({ model, contents: 'hi' })).modelVersion, model);
    const versions: (string | undefined)[] = [];
    for await (const c of await google.models.generateContentStream({ model, contents: 'hi' }))
      versions.push(c.modelVersion);
    assert.ok(
      versions.length > 0 && versions.every((v) => v === model),
      `every chunk says ${model}: ${versions.join(',')}`,
    );
  }
});
