/** The admin API's door: loopback Host only, no cross-origin browsers, the admin token, and no secrets out. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;

before(async () => {
  gw = await startGateway();
});

after(async () => {
  await gw.close();
});

function inject(headers: Record<string, string>, url = '/api/wallet'): Promise<{ statusCode: number; json(): any }> {
  return gw.running.app.inject({ method: 'GET', url, headers });
}

const auth = (): Record<string, string> => ({ authorization: `Bearer ${gw.running.adminToken}` });

test('the admin token is required and compared exactly', async () => {
  assert.equal((await inject({ host: '127.0.0.1:4141' })).statusCode, 401);
  assert.equal(
    (await inject({ host: '127.0.0.1:4141', authorization: `Bearer ${gw.running.adminToken}x` })).statusCode,
    401,
  );
  const ok = await inject({ host: '127.0.0.1:4141', ...auth() });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().balanceMicro, 0);
});

test('an sk- key is not an admin token', async () => {
  const secret = await gw.admin.key('not-admin');
  assert.equal((await inject({ host: '127.0.0.1', authorization: `Bearer ${secret}` })).statusCode, 401);
});

test('a non-loopback Host is refused (DNS rebinding)', async () => {
  for (const host of ['evil.example', 'evil.example:4141', '192.168.1.5:4141', '127.0.0.1.evil.example']) {
    const r = await inject({ host, ...auth() });
    assert.equal(r.statusCode, 403, host);
    assert.equal(r.json().error.code, 'forbidden_host');
  }
  for (const host of ['localhost:4141', '[::1]:4141', '127.0.0.1'])
    assert.equal((await inject({ host, ...auth() })).statusCode, 200, host);
});

test('cross-origin browser requests are refused (CSRF)', async () => {
  const host = '127.0.0.1:4141';
  assert.equal((await inject({ host, origin: 'http://evil.example', ...auth() })).statusCode, 403);
  assert.equal((await inject({ host, origin: 'http://127.0.0.1:9999', ...auth() })).statusCode, 403);
  assert.equal((await inject({ host, 'sec-fetch-site': 'cross-site', ...auth() })).statusCode, 403);
  assert.equal(
    (await inject({ host, origin: 'http://127.0.0.1:4141', 'sec-fetch-site': 'same-origin', ...auth() })).statusCode,
    200,
  );
});

test('the admin token file is private to the user', () => {
  const mode = statSync(join(gw.dataDir, 'admin-token')).mode & 0o777;
  assert.equal(mode, 0o600);
});

test('config and ledger never hold a key secret', async () => {
  const secret = await gw.admin.key('secretive');
  const r = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(r.status, 200);
  // A model request writes a ledger row naming the key (refused here: no line serves the model).
  const chat = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(chat.status, 503);
  assert.equal((await gw.admin.logs({ key: 'secretive' })).length, 1);

  const files = readdirSync(gw.dataDir);
  // WAL mode with the gateway running: the row is in the database file or in its write-ahead log.
  for (const f of ['config.json', 'ledger.sqlite', 'ledger.sqlite-wal'])
    assert.ok(files.includes(f), `${f} is in the data dir`);
  const config = readFileSync(join(gw.dataDir, 'config.json'), 'utf8');
  assert.ok(config.includes('secretive'), 'the config names the key');
  const ledger = Buffer.concat(['ledger.sqlite', 'ledger.sqlite-wal'].map((f) => readFileSync(join(gw.dataDir, f))));
  assert.ok(ledger.includes('secretive'), 'the scan sees the row that names the key');
  for (const f of files) {
    const bytes = readFileSync(join(gw.dataDir, f));
    assert.ok(!bytes.includes(secret.slice(3)) && !bytes.includes(secret.slice(3, 30)), `${f} holds the key secret`);
  }
});

test('admin API errors are JSON with a code and a message', async () => {
  const r = await gw.running.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: { host: '127.0.0.1', ...auth() },
    payload: { name: 'bad name!' },
  });
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().error.code, 'invalid_request');
  assert.match(r.json().error.message, /name/);
  const dup = await gw.running.app.inject({
    method: 'POST',
    url: '/api/groups',
    headers: { host: '127.0.0.1', ...auth() },
    payload: { name: 'default' },
  });
  assert.equal(dup.statusCode, 409);
});

test('malformed JSON, out-of-range amounts and unknown routes get clear 4xx answers', async () => {
  const headers = { host: '127.0.0.1', 'content-type': 'application/json', ...auth() };
  const bad = await gw.running.app.inject({
    method: 'POST',
    url: '/api/wallet/topup',
    headers,
    payload: '{"amountMicro": ',
  });
  assert.equal(bad.statusCode, 400);
  const huge = await gw.running.app.inject({
    method: 'POST',
    url: '/api/wallet/topup',
    headers,
    payload: { amountMicro: 9007199254740993 },
  });
  assert.equal(huge.statusCode, 400);
  const unknown = await gw.running.app.inject({ method: 'GET', url: '/api/nothing-here', headers });
  assert.equal(unknown.statusCode, 404);
  assert.equal(unknown.json().error.code, 'not_found');
  const proto = await gw.running.app.inject({
    method: 'POST',
    url: '/api/lines',
    headers,
    payload: { name: 'x', protocol: 'anthropic-messages', baseUrl: 'http://127.0.0.1:1/v1', models: ['gpt-4o'] },
  });
  assert.equal(proto.statusCode, 400);
  assert.match(proto.json().error.message, /allowed values/);
  const map = await gw.running.app.inject({
    method: 'POST',
    url: '/api/lines',
    headers,
    payload: {
      name: 'y',
      protocol: 'openai-chat',
      baseUrl: 'http://127.0.0.1:1/v1',
      models: ['gpt-4o'],
      modelMap: { 'gpt-4.1': 'z' },
    },
  });
  assert.equal(map.statusCode, 400);
  assert.equal(map.json().error.code, 'bad_model_map');
});

test('the admin API refuses peers that are not on this machine', async () => {
  const { remoteIsLoopback } = await import('../../gateway/admin/guard.js');
  assert.equal(remoteIsLoopback('127.0.0.1'), true);
  assert.equal(remoteIsLoopback('::ffff:127.0.0.1'), true);
  assert.equal(remoteIsLoopback('::1'), true);
  assert.equal(remoteIsLoopback('192.168.1.20'), false);
  assert.equal(remoteIsLoopback('::ffff:10.0.0.3'), false);
});

test('a Host that only starts like a loopback address is refused', async () => {
  for (const host of [
    '[::1]evil.com',
    '[::1]evil.com:4141',
    'localhost.evil.com',
    '127.0.0.1@evil.com',
    '127.0.0.1:4141:80',
    '127.0.0.256',
    'localhost:x',
  ]) {
    const r = await inject({ host, ...auth() });
    assert.equal(r.statusCode, 403, host);
  }
  // Any 127.x.y.z is this machine: a gateway started with --host 127.0.0.2 is addressed so; and
  // localhost is localhost with the root's trailing dot too (gateway/contract/loopback.ts).
  for (const host of ['127.0.0.2:4141', '127.1.2.3', 'LOCALHOST:4141', 'localhost.:4141', '[0:0:0:0:0:0:0:1]:4141'])
    assert.equal((await inject({ host, ...auth() })).statusCode, 200, host);
});

test('an Origin naming a look-alike of the gateway is refused', async () => {
  const host = '127.0.0.1:4141';
  for (const origin of ['http://[::1]evil.com', 'null', 'https://127.0.0.1:4141', 'http://127.0.0.1:4141.evil.com']) {
    assert.equal((await inject({ host, origin, ...auth() })).statusCode, 403, origin);
  }
  for (const site of ['same-site', 'cross-site'])
    assert.equal((await inject({ host, 'sec-fetch-site': site, ...auth() })).statusCode, 403, site);
});

test('model requests without a valid key write no ledger row; they are counted in the status', async () => {
  const before = (await gw.admin.logs({ limit: 500 })).length;
  const status = async (): Promise<number> =>
    (await inject({ host: '127.0.0.1', ...auth() }, '/api/status')).json().unauthenticatedRequests as number;
  const counted = await status();
  const bodies: Record<string, string>[] = [{}, { authorization: 'Bearer sk-wrong' }, { 'x-api-key': 'not-a-key' }];
  for (const headers of bodies) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(r.status, 401);
  }
  assert.equal((await gw.admin.logs({ limit: 500 })).length, before);
  assert.equal(await status(), counted + bodies.length);
});
