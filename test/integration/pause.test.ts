/**
 * Pausing the gateway (POST /api/gateway/pause, /resume; `tollgate pause`): every model request on
 * the four interfaces gets a 503 in its client's own error shape, as the official SDKs see it, with
 * no ledger row and nothing held; the admin API keeps working; resuming serves again.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { REPO, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const run = promisify(execFile);

let gw: TestGateway;
let mock: MockUpstream;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  await gw.admin.line({
    name: 'mock',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o-mini', 'claude-haiku-4-5', 'gemini-2.5-flash'],
  });
  key = await gw.admin.key('k');
});

after(async () => {
  await gw.close();
  await mock.close();
});

const USER = 'hi';

/** One request per interface, through its official SDK. */
const CALLS: Record<string, (k: string) => Promise<unknown>> = {
  'chat completions': (k) =>
    gw.openai(k).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: USER }] }),
  responses: (k) => gw.openai(k).responses.create({ model: 'gpt-4o-mini', input: USER }),
  messages: (k) =>
    new Anthropic({ baseURL: gw.url, apiKey: k, maxRetries: 0 }).messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [{ role: 'user', content: USER }],
    }),
  gemini: (k) =>
    new GoogleGenAI({ apiKey: k, httpOptions: { baseUrl: gw.url } }).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: USER,
    }),
};

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => assert.fail('the request succeeded while paused'),
    (err: unknown) => err,
  );
}

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'gateway/cli/main.ts'), '--data-dir', gw.dataDir, ...args],
    { cwd: REPO },
  );
  return stdout;
}

test('paused: each interface answers 503 in its own shape, with nothing billed, held or logged; resumed: 200 again', async () => {
  const rowsBefore = (await gw.admin.logs()).length;
  const status = await gw.admin.client.call('pauseGateway');
  assert.equal(status.paused, true);
  assert.equal((await gw.admin.client.call('getStatus')).paused, true);

  const chat = await failure(CALLS['chat completions']!(key));
  assert.ok(chat instanceof OpenAI.APIError, String(chat));
  assert.equal(chat.status, 503);
  assert.equal(chat.code, 'gateway_paused');
  assert.match(chat.message, /Tollgate is paused/);
  assert.equal(chat.headers?.get('x-should-retry'), 'false', 'the SDKs are told not to retry');

  const responses = await failure(CALLS.responses!(key));
  assert.ok(responses instanceof OpenAI.APIError, String(responses));
  assert.equal(responses.status, 503);
  assert.match(responses.message, /Tollgate is paused/);

  const messages = await failure(CALLS.messages!(key));
  assert.ok(messages instanceof Anthropic.APIError, String(messages));
  assert.equal(messages.status, 503);
  assert.equal((messages.error as { type: string }).type, 'error');
  assert.match(messages.message, /Tollgate is paused/);

  const gemini = (await failure(CALLS.gemini!(key))) as Error & { status?: number };
  assert.equal(gemini.status, 503, String(gemini));
  assert.match(gemini.message, /UNAVAILABLE/);
  assert.match(gemini.message, /Tollgate is paused/);

  // Streams and requests without a valid key are refused the same way, before anything else.
  const stream = await failure(
    gw
      .openai(key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: USER }], stream: true }),
  );
  assert.equal((stream as InstanceType<typeof OpenAI.APIError>).status, 503);
  const anonymous = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: '{}',
  });
  assert.equal(anonymous.status, 503);
  assert.equal(((await anonymous.json()) as { error: { type: string } }).error.type, 'overloaded_error');

  // The admin API still works, and nothing was billed, held or logged.
  const wallet = await gw.admin.wallet();
  assert.deepEqual([wallet.balanceMicro, wallet.heldMicro, wallet.spentMicro], [5_000_000, 0, 0]);
  assert.equal((await gw.admin.logs()).length, rowsBefore, 'no ledger row while paused');

  assert.equal((await gw.admin.client.call('resumeGateway')).paused, false);
  for (const [name, call] of Object.entries(CALLS)) await assert.doesNotReject(call(key), `${name} after resume`);
  assert.equal((await gw.admin.logs()).length, rowsBefore + 4);
  assert.equal((await gw.admin.doctor()).ok, true);
});

test('pause and resume are idempotent, and a restarted gateway is not paused', async () => {
  await gw.admin.client.call('pauseGateway');
  assert.equal((await gw.admin.client.call('pauseGateway')).paused, true);
  await gw.admin.client.call('resumeGateway');
  assert.equal((await gw.admin.client.call('resumeGateway')).paused, false);

  const other = await startGateway();
  try {
    await other.admin.client.call('pauseGateway');
    await other.running.close();
    const again = await startGateway(other.dataDir);
    try {
      assert.equal(
        (await again.admin.client.call('getStatus')).paused,
        false,
        'the pause is in memory: a restart resumes',
      );
    } finally {
      await again.close();
    }
  } finally {
    await other.close();
  }
});

test('tollgate pause, status and resume', async () => {
  assert.match(await cli('pause'), /Paused: model requests get 503/);
  assert.match(await cli('status'), /Paused/);
  assert.equal(JSON.parse(await cli('status', '--json')).paused, true);
  assert.equal((await gw.admin.client.call('getStatus')).paused, true);
  assert.match(await cli('resume'), /Running: model requests are served/);
  assert.equal(JSON.parse(await cli('status', '--json')).paused, false);
});
