/**
 * The admin side's own fetches (a line's model list for `lines test`, `lines models`, the import
 * and local presets; a price file URL): no redirect followed with a credential, bounded reads,
 * masked error text, and no download into a private address the user did not name.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { lookup } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, test } from 'node:test';
import { isPrivateAddress } from '../../gateway/upstream/outbound.js';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';

const CREDENTIAL = 'tg/line-credential-9c4f2a71';

/** A server that records what reached it and answers as `reply` says. */
async function server(reply: (path: string, res: ServerResponse) => void): Promise<{
  url: string;
  seen: { path: string; headers: IncomingHttpHeaders }[];
  close: () => Promise<void>;
}> {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const s: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    reply(req.url ?? '', res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => s.close(() => r())),
  };
}

let gw: TestGateway;
let elsewhere: Awaited<ReturnType<typeof server>>;
let hostile: Awaited<ReturnType<typeof server>>;

before(async () => {
  gw = await startGateway();
  elsewhere = await server((_p, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'));
  const escaped = [...CREDENTIAL].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  hostile = await server((path, res) => {
    if (path.startsWith('/redirect/'))
      return res.writeHead(302, { location: `${elsewhere.url}/v1/models?stolen=1` }).end();
    if (path.startsWith('/huge/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const row = JSON.stringify({ id: 'x'.repeat(200), object: 'model' });
      for (let i = 0; i < 50_000; i++) res.write(`${i ? ',' : ''}${row}`);
      return res.end(']}');
    }
    if (path.startsWith('/echo/'))
      return res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(`{"error":{"message":"bad key ${escaped} (${CREDENTIAL.replace('/', '\\/')})"}}`);
    if (path.startsWith('/prices-to-localhost'))
      return res.writeHead(302, { location: `http://localhost:${new URL(elsewhere.url).port}/prices.json` }).end();
    return res.writeHead(404).end();
  });
  for (const name of ['redirect', 'huge', 'echo'])
    await gw.admin.line({
      name,
      protocol: 'openai-chat',
      baseUrl: `${hostile.url}/${name}/v1`,
      models: ['gpt-4o-mini'],
      apiKey: CREDENTIAL,
    });
});

after(async () => {
  await gw?.close();
  await hostile?.close();
  await elsewhere?.close();
});

function call<T>(name: 'testLine' | 'listLineModels', line: string): Promise<T> {
  return gw.admin.client.call(name, { params: { name: line } }) as Promise<T>;
}

test('a redirect is not followed with the line credential: lines test and lines models say where it pointed', async () => {
  const probe = await call<{ ok: boolean; message: string }>('testLine', 'redirect');
  assert.equal(probe.ok, false);
  assert.match(probe.message, /redirect to http:\/\/127\.0\.0\.1:\d+; not followed/);
  assert.ok(!probe.message.includes('stolen'), 'only the origin is named');
  const listed = await refusal(call('listLineModels', 'redirect'));
  assert.equal(listed.status, 502);
  assert.deepEqual(elsewhere.seen, [], 'nothing, and no credential, reached the redirect target');
});

test('a model list is read up to a bound, not whole', async () => {
  const probe = await call<{ ok: boolean; message: string }>('testLine', 'huge');
  assert.equal(probe.ok, false);
  assert.match(probe.message, /larger than 8192 KB/);
});

test("the upstream's error text is masked after decoding", async () => {
  const probe = await call<{ ok: boolean; status: number; message: string }>('testLine', 'echo');
  assert.deepEqual([probe.ok, probe.status], [false, 401]);
  assert.ok(!probe.message.includes(CREDENTIAL), probe.message);
  assert.ok(!JSON.parse(JSON.stringify(probe.message)).includes(CREDENTIAL));
  assert.match(probe.message, /\[redacted\]/);
  const listed = await refusal(call('listLineModels', 'echo'));
  assert.ok(!listed.message.includes(CREDENTIAL), listed.message);
});

test('a price URL that redirects to a local address the user did not name is refused', async () => {
  const r = await refusal(
    gw.admin.client.call('importPrices', { body: { url: `${hostile.url}/prices-to-localhost`, dryRun: true } }),
  );
  assert.equal(r.code, 'private_address');
  assert.deepEqual(elsewhere.seen, [], 'the local target was not asked');
});

test('a name that resolves to a private address is refused when the socket connects; the address itself may be named', async (t) => {
  const name = hostname();
  const resolved = await lookup(name).catch(() => undefined);
  if (!resolved || !isPrivateAddress(resolved.address))
    return t.skip(`${name} does not resolve to a private address here`);
  const port = new URL(elsewhere.url).port;
  const asked = elsewhere.seen.length;
  const r = await refusal(
    gw.admin.client.call('importPrices', { body: { url: `http://${name}:${port}/prices.json`, dryRun: true } }),
  );
  assert.equal(elsewhere.seen.length, asked, 'nothing reached the private address');
  assert.equal(r.code, 'private_address');
  assert.match(r.message, /resolves to/);
  // Named by its address, the same place is the user's explicit choice: it is downloaded.
  await gw.admin.client.call('importPrices', { body: { url: `${elsewhere.url}/prices.json`, dryRun: true } });
  assert.equal(elsewhere.seen.length, asked + 1);
});

test('what counts as a private address', () => {
  for (const ip of [
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:a9fe:a9fe]',
  ])
    assert.equal(isPrivateAddress(ip), true, ip);
  for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:808:808', 'example.com'])
    assert.equal(isPrivateAddress(ip), false, ip);
});
