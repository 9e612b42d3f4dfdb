/**
 * Token counting never freezes the gateway: a 200 kB one-word prompt to count_tokens (it stopped
 * every client and the admin API for 17 s) is answered while other clients and the admin API are,
 * with the official SDKs; a client that hangs up on a long count leaves the gateway serving.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;
const ONE_WORD = 'word'.repeat(50_000);

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(5);
  await gw.admin.line({
    name: 'messages',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, ''),
    models: ['claude-haiku-4-5'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'gemini',
    protocol: 'gemini',
    baseUrl: scenarioOrigin(mock, ''),
    models: ['gemini-2.5-flash'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'chat',
    protocol: 'openai-chat',
    baseUrl: scenarioBase(mock, 'reply=pong'),
    models: ['gpt-4.1-mini'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  key = await gw.admin.key('counter');
});

after(async () => {
  await gw.close();
  await mock.close();
});

test('200 kB one-word prompts counted on Messages and Gemini while chat requests and the admin API are answered', async () => {
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  const gemini = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
  const counts = Promise.all([
    anthropic.messages.countTokens({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: ONE_WORD }] }),
    gemini.models.countTokens({ model: 'gemini-2.5-flash', contents: ONE_WORD }),
  ]);
  const others = Promise.all([
    ...Array.from({ length: 5 }, () => gw.admin.wallet()),
    ...Array.from(
      { length: 5 },
      async () =>
        (
          await gw
            .openai(key)
            .chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'ping' }] })
        ).choices[0]!.message.content,
    ),
  ]);
  const [[messages, gen], answered] = await Promise.all([counts, others]);
  assert.ok(
    messages.input_tokens > 10_000 && messages.input_tokens < 100_000,
    `Messages count ${messages.input_tokens}`,
  );
  assert.ok(gen.totalTokens! > 10_000 && gen.totalTokens! < 100_000, `Gemini count ${gen.totalTokens}`);
  assert.deepEqual(answered.slice(5), ['pong', 'pong', 'pong', 'pong', 'pong']);
});

test('a client that hangs up on a long count leaves the gateway counting for the next one', async () => {
  const big = Array.from({ length: 400_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join('');
  const gone = new AbortController();
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  const hungUp = anthropic.messages.countTokens(
    { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: big }] },
    { signal: gone.signal },
  );
  setTimeout(() => gone.abort(), 50);
  await assert.rejects(hungUp);
  const next = await anthropic.messages.countTokens({
    model: 'claude-haiku-4-5',
    messages: [{ role: 'user', content: 'hello there' }],
  });
  assert.ok(next.input_tokens > 0);
  assert.equal((await gw.admin.logs({ key: 'counter' })).filter((r) => r.status >= 500).length, 0, 'no 5xx row');
});
