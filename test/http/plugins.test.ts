/**
 * The shell's HTTP plugins (gateway/http/) on a bare Fastify app, with app.inject() and fakes for
 * the gateway: the request guard attaches to format routes only, once each; what it refuses is
 * answered in the format's shape with no ledger row; a body refused after the guard passed is
 * settled once, with its error. Everything else about them runs in test/integration/.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Charge } from '../../gateway/billing/billing.js';
import { GatewayError } from '../../gateway/core/errors.js';
import { bodyParsing } from '../../gateway/http/body.js';
import { errorHandling } from '../../gateway/http/errors.js';
import { formatRoutes, type Mounted } from '../../gateway/http/format-routes.js';
import { requestGuard } from '../../gateway/http/guard.js';
import type { KeyRecord } from '../../gateway/store/types.js';
import { WIRE } from '../../gateway/wire/index.js';

const KEY: KeyRecord = {
  id: 'key_a',
  name: 'a',
  hash: 'h',
  last4: 'abcd',
  group: 'default',
  quotaMicro: null,
  expiresAt: null,
  state: 'enabled',
  createdAt: '2025-01-01T00:00:00.000Z',
};

function mounted(format: keyof typeof WIRE, method: string, url: string): Mounted[] {
  const f = WIRE[format];
  const route = f.routes.find((r) => r.method === method && r.url === url);
  assert.ok(route, `${format} has no route ${method} ${url}`);
  return [{ format: f, route }];
}

interface Seen {
  authentications: number;
  charges: Charge[];
  logged: string[];
}

/** A bare app with the plugins, a format route per case, and a plain route; what the fakes saw. */
async function app(opts: { validKey: boolean; failureWaitMs?: number }): Promise<{ app: FastifyInstance; seen: Seen }> {
  const seen: Seen = { authentications: 0, charges: [], logged: [] };
  const gateway = {
    pause: { paused: false },
    keys: {
      authenticate: () => {
        seen.authentications++;
        if (!opts.validKey) throw new GatewayError('authentication', 'Invalid API key.', { code: 'invalid_api_key' });
        return KEY;
      },
      failures: { fail: () => opts.failureWaitMs ?? 0 },
    },
  };
  const billing = {
    settle: async (charge: Charge) => {
      seen.charges.push(charge);
      return null;
    },
  };
  const errorLog = new Writable({
    write(chunk, _encoding, done) {
      seen.logged.push(String(chunk));
      done();
    },
  });
  const a = Fastify({ bodyLimit: 1024 });
  await a.register(bodyParsing);
  await a.register(errorHandling, { billing, errorLog, bodyLimit: 1024 });
  await a.register(requestGuard, { gateway });
  a.route({
    method: 'GET',
    url: '/v1/models',
    config: { formats: mounted('openai-chat', 'GET', '/v1/models') },
    handler: async (req) => ({ format: req.format?.id, billable: req.exchange?.billable }),
  });
  a.route({
    method: 'POST',
    url: '/v1/messages',
    config: { formats: mounted('anthropic', 'POST', '/v1/messages') },
    handler: async () => ({ never: 'reached' }),
  });
  a.get('/plain', async (req) => ({ exchange: req.exchange }));
  await a.ready();
  return { app: a, seen };
}

describe('the request guard', () => {
  test('runs once per request on a format route, HEAD included, and not on other routes', async () => {
    const t = await app({ validKey: true });
    const got = await t.app.inject({ method: 'GET', url: '/v1/models' });
    assert.deepEqual(got.json(), { format: 'openai-chat', billable: false });
    assert.equal(t.seen.authentications, 1);
    assert.equal((await t.app.inject({ method: 'HEAD', url: '/v1/models' })).statusCode, 200);
    assert.equal(t.seen.authentications, 2);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/plain' })).json(), { exchange: null });
    assert.equal(t.seen.authentications, 2);
  });

  test("the formats' routes refuse to load without it", async () => {
    const bare = Fastify();
    await bare.register(bodyParsing);
    const billing = { settle: async () => null };
    await bare.register(errorHandling, { billing, errorLog: process.stderr, bodyLimit: 1024 });
    // Never called: the plugin refuses to load first.
    const relay = {} as Parameters<typeof formatRoutes>[1]['gateway']['relay'];
    await assert.rejects(async () => {
      await bare.register(formatRoutes, { gateway: { relay, billing }, errorLog: process.stderr });
    }, /tollgate-request-guard/);
  });

  test("refuses a bad key in the format's error shape, before the body is read, with no ledger row", async () => {
    const t = await app({ validKey: false });
    const res = await t.app.inject({ method: 'POST', url: '/v1/messages', payload: 'not json' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().type, 'error');
    assert.equal(res.json().error.type, 'authentication_error');
    assert.equal(res.headers['x-request-id'], undefined);
    assert.deepEqual(t.seen.charges, []);
  });

  test('a refusal after many failed keys is answered later, with the same error', async () => {
    const t = await app({ validKey: false, failureWaitMs: 150 });
    const started = performance.now();
    const res = await t.app.inject({ method: 'POST', url: '/v1/messages', payload: '{}' });
    assert.ok(performance.now() - started >= 140, `answered after ${performance.now() - started} ms`);
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.type, 'authentication_error');
    assert.deepEqual(t.seen.charges, []);
  });
});

describe('a request refused after the guard passed', () => {
  test("a body that is not JSON is answered in the format's shape and settled once, with its error", async () => {
    const t = await app({ validKey: true });
    const res = await t.app.inject({ method: 'POST', url: '/v1/messages', payload: '{"model":' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.type, 'invalid_request_error');
    assert.deepEqual(
      t.seen.charges.map((c) => [
        c.requestId,
        c.status,
        c.errorCode,
        c.usage,
        c.usageEstimated,
        c.keyId,
        c.inboundProtocol,
      ]),
      [[res.headers['x-request-id'], 400, 'invalid_json', null, false, 'key_a', 'anthropic']],
    );
    assert.deepEqual(t.seen.logged, []);
  });

  test('a body that is not UTF-8 is refused naming the byte; one over the limit gets a 413', async () => {
    const t = await app({ validKey: true });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/messages',
      payload: Buffer.from([0x7b, 0xff, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().error.message, /byte 1 \(0xff\)/);
    const big = await t.app.inject({
      method: 'POST',
      url: '/v1/messages',
      payload: JSON.stringify({ a: 'x'.repeat(2048) }),
    });
    assert.equal(big.statusCode, 413);
    assert.deepEqual(
      t.seen.charges.map((c) => c.errorCode),
      ['invalid_utf8', 'body_too_large'],
    );
  });
});
