/**
 * Every error status a client can meet (401, 402, 404, 429, 5xx, 400), as the official openai SDK sees it:
 * status, OpenAI error shape, a message that says what to do, a ledger row, and no charge.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;
let closedPort: number;

const MSG = [{ role: 'user' as const, content: 'hi' }];

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function rejects(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof OpenAI.APIError, `expected an APIError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the request to fail');
}

async function raw(
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(gw.url + path, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function lastRow(): Promise<Awaited<ReturnType<TestGateway['admin']['logs']>>[number]> {
  return (await gw.admin.logs({ limit: 1 }))[0]!;
}

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  closedPort = await freePort();
  await gw.admin.topup(5);
  await gw.admin.line({ name: 'ok', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini', 'gpt-4o'] });
  await gw.admin.line({ name: 'slow-limit', baseUrl: `${mock.url}/v1`, models: ['gpt-4.1-mini'], rpm: 2 });
  await gw.admin.line({ name: 'fails', baseUrl: scenarioBase(mock, 'status=500'), models: ['gpt-4.1'] });
  await gw.admin.line({ name: 'limited', baseUrl: scenarioBase(mock, 'status=429,retry-after=7'), models: ['gpt-5'] });
  await gw.admin.line({ name: 'down', baseUrl: `http://127.0.0.1:${closedPort}/v1`, models: ['gpt-5-nano'] });
  await gw.admin.line({
    name: 'stalls',
    baseUrl: scenarioBase(mock, 'delay=10000'),
    models: ['gpt-5.1'],
    timeouts: { firstByteMs: 300, nonStreamingFirstByteMs: 300 },
  });
  await gw.admin.line({ name: 'overloaded', baseUrl: scenarioBase(mock, 'status=503'), models: ['gpt-5.2'] });
  await gw.admin.line({ name: 'bad-request', baseUrl: scenarioBase(mock, 'status=400'), models: ['gpt-5.4'] });
  key = await gw.admin.key('k');
});

after(async () => {
  await gw.close();
  await mock.close();
});

describe('401: key invalid, disabled, deleted or pasted incompletely', () => {
  test('no key: a 401, and no ledger row (a page in the browser could otherwise fill the ledger)', async () => {
    const rows = (await gw.admin.logs({ limit: 500 })).length;
    const r = await raw('/v1/chat/completions', { body: JSON.stringify({ model: 'gpt-4o-mini', messages: MSG }) });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, 'invalid_api_key');
    assert.match(r.body.error.message, /No API key was sent/);
    assert.equal((await gw.admin.logs({ limit: 500 })).length, rows);
  });

  test('unknown key', async () => {
    const err = await rejects(
      gw.openai('sk-' + 'A'.repeat(48)).chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }),
    );
    assert.equal(err.status, 401);
    assert.match(err.message, /not known to this Tollgate/);
  });

  test('not an sk- key', async () => {
    const err = await rejects(gw.openai('abc123').chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }));
    assert.equal(err.status, 401);
    assert.match(err.message, /start with "sk-"/);
  });

  test('cut short when copied', async () => {
    const err = await rejects(
      gw.openai(key.slice(0, 30)).chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }),
    );
    assert.equal(err.status, 401);
    assert.match(err.message, /30 characters long .* cut short/);
  });

  test('surrounding whitespace', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: MSG });
    for (const r of [
      await raw('/v1/chat/completions', { headers: { authorization: `Bearer  ${key}` }, body }),
      await raw(`/v1/chat/completions?key=%20${key}`, { body }),
      await raw(`/v1/chat/completions?key=${key}%0A`, { body }),
    ]) {
      assert.equal(r.status, 401);
      assert.match(r.body.error.message, /spaces or line breaks/);
    }
    // HTTP itself strips whitespace at the ends of a header value, so this key arrives intact.
    assert.equal((await raw('/v1/chat/completions', { headers: { 'x-api-key': `${key}\t` }, body })).status, 200);
  });

  test('disabled, enabled again, then deleted', async () => {
    const secret = await gw.admin.key('toggle');
    const c = gw.openai(secret);
    await gw.admin.client.call('disableKey', { params: { name: 'toggle' } });
    let err = await rejects(c.chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }));
    assert.equal(err.status, 401);
    assert.match(err.message, /"toggle" is disabled/);
    await gw.admin.client.call('enableKey', { params: { name: 'toggle' } });
    await c.chat.completions.create({ model: 'gpt-4o-mini', messages: MSG });
    await gw.admin.client.call('deleteKey', { params: { name: 'toggle' } });
    err = await rejects(c.chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }));
    assert.equal(err.status, 401);
    assert.match(err.message, /"toggle" was deleted/);
  });

  test('expired', async () => {
    const secret = await gw.admin.key('short-lived', { expiresAt: new Date(Date.now() + 400).toISOString() });
    await sleep(500);
    const err = await rejects(gw.openai(secret).chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }));
    assert.equal(err.status, 401);
    assert.match(err.message, /expired/);
  });
});

describe('404: model not found', () => {
  test('unknown model', async () => {
    const err = await rejects(gw.openai(key).chat.completions.create({ model: 'gpt-4o-mini ', messages: MSG }));
    assert.equal(err.status, 404);
    assert.equal(err.code, 'model_not_found');
    assert.match(err.message, /GET \/v1\/models/);
    assert.equal((await lastRow()).errorCode, 'model_not_found');
  });

  test("a model outside the key's group", async () => {
    await gw.admin.group('mini-only', '1', ['gpt-4o-mini']);
    const c = gw.openai(await gw.admin.key('mini', { group: 'mini-only' }));
    const err = await rejects(c.chat.completions.create({ model: 'gpt-4o', messages: MSG }));
    assert.equal(err.status, 404);
    assert.equal(err.code, 'model_not_found');
    assert.match(err.message, /group "mini-only"/);
  });
});

describe('402: insufficient balance or key quota', () => {
  test('the key quota is reached', async () => {
    const c = gw.openai(await gw.admin.key('capped', { quotaMicro: 100 }));
    const err = await rejects(c.chat.completions.create({ model: 'gpt-4o', messages: MSG, max_tokens: 1000 }));
    assert.equal(err.status, 402);
    assert.equal(err.code, 'insufficient_quota');
    assert.match(err.message, /Key quota reached: the key "capped" has used \$0\.00 of its \$0\.0001 quota/);
    assert.equal(err.headers?.get('x-should-retry'), 'false');
    assert.equal((await lastRow()).errorCode, 'key_quota_exceeded');
  });

  test('the wallet is too low', async () => {
    const poor = await startGateway();
    try {
      await poor.admin.topup(0.001);
      await poor.admin.line({ name: 'ok', baseUrl: `${mock.url}/v1`, models: ['gpt-4o'] });
      const c = poor.openai(await poor.admin.key('k'));
      const err = await rejects(c.chat.completions.create({ model: 'gpt-4o', messages: MSG, max_tokens: 1000 }));
      assert.equal(err.status, 402);
      assert.match(err.message, /Insufficient balance: the wallet has \$0\.001, and this request needs up to \$0\.01/);
      // A smaller ceiling fits.
      const ok = await c.chat.completions.create({ model: 'gpt-4o', messages: MSG, max_tokens: 50 });
      assert.equal(ok.choices[0]!.message.content, 'mock reply to: hi');
    } finally {
      await poor.close();
    }
  });
});

describe('429: line rate limit or upstream limiting', () => {
  test("over the line's requests per minute", async () => {
    const c = gw.openai(key);
    await c.chat.completions.create({ model: 'gpt-4.1-mini', messages: MSG });
    await c.chat.completions.create({ model: 'gpt-4.1-mini', messages: MSG });
    const before = mock.requests.length;
    const err = await rejects(c.chat.completions.create({ model: 'gpt-4.1-mini', messages: MSG }));
    assert.equal(err.status, 429);
    assert.equal(err.code, 'rate_limit_exceeded');
    const retryAfter = Number(err.headers?.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    assert.equal(mock.requests.length, before, 'nothing was forwarded');
    assert.equal((await lastRow()).errorCode, 'line_rate_limited');
  });

  test('the upstream says 429: its retry-after is passed on', async () => {
    const err = await rejects(gw.openai(key).chat.completions.create({ model: 'gpt-5', messages: MSG }));
    assert.equal(err.status, 429);
    assert.equal(err.headers?.get('retry-after'), '7');
    const row = await lastRow();
    assert.equal(row.errorCode, 'upstream_rate_limited');
    assert.equal(row.costMicro, 0);
  });
});

describe('404: wrong endpoint form', () => {
  test('/v1 missing from the base URL', async () => {
    const c = new OpenAI({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    const err = await rejects(c.chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }));
    assert.equal(err.status, 404);
    assert.match(err.message, new RegExp(`base URL is missing /v1. Set the base URL to ${gw.url}/v1`));
  });

  test('/v1 twice', async () => {
    const c = new OpenAI({ baseURL: `${gw.url}/v1/v1`, apiKey: key, maxRetries: 0 });
    const err = await rejects(c.chat.completions.create({ model: 'gpt-4o-mini', messages: MSG }));
    assert.equal(err.status, 404);
    assert.match(err.message, /has \/v1 twice/);
  });
});

describe('5xx: upstream failure; nothing charged, nothing held', () => {
  const cases: [string, string, number, string][] = [
    ['upstream answers 500', 'gpt-4.1', 502, 'upstream_error'],
    ['upstream unreachable', 'gpt-5-nano', 503, 'upstream_unreachable'],
    ['upstream overloaded (503)', 'gpt-5.2', 503, 'upstream_unavailable'],
    ['upstream too slow to answer', 'gpt-5.1', 504, 'upstream_timeout'],
  ];
  for (const [name, model, status, code] of cases) {
    for (const stream of [false, true]) {
      test(`${name}${stream ? ', streaming' : ''}`, async () => {
        const before = await gw.admin.wallet();
        const err = await rejects(
          (async () => {
            const r = await gw.openai(key).chat.completions.create({ model, messages: MSG, stream });
            if (stream) for await (const _ of r as AsyncIterable<unknown>) void _;
          })(),
        );
        assert.equal(err.status, status);
        const row = await lastRow();
        assert.equal(row.status, status);
        assert.equal(row.errorCode, code);
        assert.equal(row.costMicro, 0);
        const after = await gw.admin.wallet();
        assert.equal(after.balanceMicro, before.balanceMicro);
        assert.equal(after.heldMicro, 0);
      });
    }
  }

  test("an upstream 400 about the request reaches the client as a 400 with the upstream's words", async () => {
    const err = await rejects(gw.openai(key).chat.completions.create({ model: 'gpt-5.4', messages: MSG }));
    assert.equal(err.status, 400);
    assert.match(err.message, /Upstream rejected the request \(HTTP 400\)/);
  });
});

describe('400: bad JSON or body', () => {
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${key}` });
  test('invalid JSON', async () => {
    const r = await raw('/v1/chat/completions', { headers: auth(), body: '{"model": "gpt-4o-mini", "messages": [' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.type, 'invalid_request_error');
    assert.match(r.body.error.message, /not valid JSON/);
    assert.equal((await lastRow()).errorCode, 'invalid_json');
  });
  test('empty body', async () => {
    const r = await raw('/v1/chat/completions', { headers: auth(), body: '' });
    assert.equal(r.status, 400);
  });
  for (const [name, body, pattern] of [
    ['no messages', { model: 'gpt-4o-mini' }, /messages/],
    ['empty messages', { model: 'gpt-4o-mini', messages: [] }, /messages/],
    ['no model', { messages: MSG }, /model/],
    ['stream is not a boolean', { model: 'gpt-4o-mini', messages: MSG, stream: 'yes' }, /stream/],
    ['unknown role', { model: 'gpt-4o-mini', messages: [{ role: 'robot', content: 'x' }] }, /role/],
    ['a JSON array', [1, 2], /object/],
  ] as const) {
    test(name, async () => {
      const r = await raw('/v1/chat/completions', { headers: auth(), body: JSON.stringify(body) });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.type, 'invalid_request_error');
      assert.match(r.body.error.message, pattern);
    });
  }
});
