/** A line made from a preset carries its vendor's request quirks and auth style into the requests it sends. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
});

after(async () => {
  await gw.close();
  await mock.close();
});

test("the openai preset sends max_completion_tokens (OpenAI's reasoning models refuse max_tokens); others send max_tokens", async () => {
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  // The presets' own base URLs point at the vendors; here they point at the mock.
  await gw.admin.client.call('addLine', {
    body: {
      preset: 'openai',
      baseUrl: `${mock.url}/v1`,
      models: ['gpt-5-mini'],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    },
  });
  await gw.admin.client.call('addLine', {
    body: { preset: 'deepseek', baseUrl: `${mock.url}/v1`, apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' },
  });
  const client = new Anthropic({ baseURL: gw.url, apiKey: await gw.admin.key('k'), maxRetries: 0 });
  await client.messages.create({ model: 'gpt-5-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  let sent = mock.requests.at(-1)!;
  assert.equal(sent.body.max_completion_tokens, 100);
  assert.equal(sent.body.max_tokens, undefined);
  assert.equal(sent.headers.authorization, 'Bearer upstream-secret');
  const deepseek = (await gw.admin.client.call('listLines')).lines.find((l) => l.name === 'deepseek')!;
  await client.messages.create({
    model: deepseek.models[0]!,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hi' }],
  });
  sent = mock.requests.at(-1)!;
  assert.equal(sent.body.max_tokens, 100);
  assert.equal(sent.body.max_completion_tokens, undefined);
});

test('a line made from a preset sends its key in the header the preset names', async () => {
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.client.call('addLine', {
    body: {
      preset: 'anthropic',
      baseUrl: mock.url,
      models: ['claude-haiku-4-5'],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    },
  });
  await gw.admin.client.call('addLine', {
    body: { preset: 'ollama', name: 'local', baseUrl: `${mock.url}/v1`, models: ['gpt-4.1-mini'] },
  });
  const stored = gw.running.gateway.config.data.lines;
  assert.equal(stored.find((l) => l.name === 'anthropic')!.auth, 'x-api-key');
  assert.equal(
    stored.find((l) => l.name === 'local')!.auth,
    undefined,
    'a preset that takes no key leaves the style to the protocol',
  );
  const client = gw.openai(await gw.admin.key('auth'));
  await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] });
  let sent = mock.requests.at(-1)!;
  assert.equal(sent.path, '/v1/messages');
  assert.deepEqual([sent.headers['x-api-key'], sent.headers.authorization], ['upstream-secret', undefined]);
  await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
  sent = mock.requests.at(-1)!;
  assert.deepEqual(
    [sent.headers['x-api-key'], sent.headers.authorization],
    [undefined, undefined],
    'no key, no header',
  );
});
