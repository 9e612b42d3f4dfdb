/**
 * Plan windows (routing/plan-windows.ts): an upstream's rate-limit headers reach the client as
 * they came, on the pass-through and translated alike, and the line's health in the admin API
 * shows what they say: Anthropic's 5-hour and 7-day windows, OpenAI's request and token limits.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  RATE_LIMIT_RESET,
  scenarioBase,
  scenarioOrigin,
  startMockUpstream,
  type MockUpstream,
} from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(5);
  const auth = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  await gw.admin.line({
    name: 'claude-max',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, 'ratelimit'),
    models: ['claude-sonnet-4-6'],
    ...auth,
  });
  await gw.admin.line({ name: 'openai', baseUrl: scenarioBase(mock, 'ratelimit'), models: ['gpt-4.1'], ...auth });
  key = await gw.admin.key('windows');
});

after(async () => {
  await gw.close();
  await mock.close();
});

const line = async (name: string) => (await gw.admin.call('listLines')).lines.find((l) => l.name === name)!;

test('no headers yet: no plan windows', async () => {
  assert.equal((await line('claude-max')).planWindows, null);
});

test("Anthropic's unified windows reach a Messages client unchanged and show in the line's health", async () => {
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  for (const stream of [false, true]) {
    const { response } = await anthropic.messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], stream })
      .withResponse();
    assert.equal(response.headers.get('anthropic-ratelimit-unified-5h-utilization'), '0.42');
    assert.equal(response.headers.get('anthropic-ratelimit-unified-7d-status'), 'allowed_warning');
  }
  const view = (await line('claude-max')).planWindows!;
  assert.deepEqual(view.windows, [
    { name: '5h', utilization: 0.42, resetsAt: new Date(RATE_LIMIT_RESET * 1000).toISOString(), status: 'allowed' },
    {
      name: '7d',
      utilization: 0.1,
      resetsAt: new Date((RATE_LIMIT_RESET + 86_400) * 1000).toISOString(),
      status: 'allowed_warning',
    },
  ]);
  assert.equal(view.headers['anthropic-ratelimit-unified-5h-reset'], String(RATE_LIMIT_RESET));
});

test("OpenAI's x-ratelimit-* reach a client of another format unchanged (translated), and become windows", async () => {
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  const { response } = await anthropic.messages
    .create({ model: 'gpt-4.1', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(response.headers.get('x-ratelimit-remaining-tokens'), '27000');
  const windows = (await line('openai')).planWindows!.windows;
  assert.deepEqual(
    windows.map((w) => [w.name, w.utilization, w.status]),
    [
      ['requests', 0.002, null],
      ['tokens', 0.1, null],
    ],
  );
  const resetIn = Date.parse(windows[1]!.resetsAt!) - Date.now();
  assert.ok(resetIn > 5 * 60_000 && resetIn <= 6 * 60_000, `6m0s from now: ${resetIn} ms`);
});
