/** Lines that would hurt: one pointing at the gateway itself (recursion), one naming a variable that is not a credential. */
import assert from 'node:assert/strict';
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  key = await gw.admin.key('k');
});

after(async () => {
  await gw.close();
  await mock.close();
});

function chat(model: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

test('a line whose base URL is the gateway itself is refused, under any loopback name', async () => {
  const port = new URL(gw.url).port;
  for (const baseUrl of [
    `${gw.url}/v1`,
    `http://localhost:${port}/v1`,
    `http://0.0.0.0:${port}`,
    `http://[::1]:${port}/v1`,
    `http://127.0.0.9:${port}`,
    `http://[::ffff:127.0.0.1]:${port}/v1`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${port}`,
    `http://[::ffff:0.0.0.0]:${port}`,
    `http://[::]:${port}`,
  ]) {
    const err = await refusal(gw.admin.line({ name: 'self', baseUrl, models: ['gpt-4o-mini'] }));
    assert.equal(err.code, 'line_points_at_gateway', baseUrl);
  }
  await gw.admin.line({ name: 'elsewhere', baseUrl: `${mock.url}/v1`, models: ['gpt-4o'] });
  const err = await refusal(
    gw.admin.client.call('updateLine', {
      params: { name: 'elsewhere' },
      body: { baseUrl: `http://localhost:${port}` },
    }),
  );
  assert.equal(err.code, 'line_points_at_gateway');
});

test('a line that reaches the gateway by a way the check cannot see ends in one refused hop, not a loop', async () => {
  // A TCP relay on another port: to the admin check it is some other server.
  const relay: Server = createServer((client) => {
    const upstream = connect(Number(new URL(gw.url).port), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  try {
    await gw.admin.line({
      name: 'loop',
      baseUrl: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/v1`,
      models: ['gpt-4.1'],
    });
    const res = await chat('gpt-4.1');
    assert.equal(res.status, 502);
    const body = (await res.json()) as any;
    assert.match(body.error.message, /HTTP 508.*came from this Tollgate gateway itself/);
    const rows = await gw.admin.logs({ model: 'gpt-4.1' });
    assert.equal(rows.length, 1, 'one row: the echo was refused before it could be forwarded again');
  } finally {
    relay.close();
  }
});

test('apiKeyEnv must name a credential variable, not PATH or HOME', async () => {
  for (const apiKeyEnv of ['PATH', 'HOME', 'SSH_AUTH_SOCK', 'KEYBOARD']) {
    const err = await refusal(
      gw.admin.line({ name: 'env', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'], apiKeyEnv }),
    );
    assert.equal(err.code, 'bad_key_variable', apiKeyEnv);
  }
  await gw.admin.line({
    name: 'env-ok',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o-mini'],
    apiKeyEnv: 'TOLLGATE_TEST_API_KEY',
  });
  const err = await refusal(
    gw.admin.client.call('updateLine', { params: { name: 'env-ok' }, body: { apiKeyEnv: 'PATH' } }),
  );
  assert.equal(err.code, 'bad_key_variable');
});

test('a line already in the config with apiKeyEnv PATH does not send PATH upstream', async () => {
  await gw.admin.line({ name: 'old', baseUrl: `${mock.url}/v1`, models: ['o3'], apiKeyEnv: 'OLD_API_KEY' });
  await gw.running.gateway.config.update((d) => {
    d.lines.find((l) => l.name === 'old')!.apiKeyEnv = 'PATH';
  });
  const before = mock.requests.length;
  const res = await chat('o3');
  assert.equal(res.status, 503);
  assert.match(((await res.json()) as any).error.message, /names PATH as its key variable/);
  assert.equal(mock.requests.length, before);
  assert.ok(!mock.requests.some((r) => JSON.stringify(r.headers).includes(process.env.PATH!)));
});
