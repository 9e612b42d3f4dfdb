/**
 * The typed admin client against a stand-in server that answers whatever a test says: it must
 * send what the route table says, refuse replies that break the contract, and fail with one
 * error class. (That it builds for a browser: test/contract/browser.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { AdminClient, AdminError, bearer, CLIENT_ERRORS } from '../../../gateway/contract/admin/index.js';
import type { AdminHandlers } from '../../../gateway/admin/handlers.js';
import { refusal } from '../../helpers/gateway.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function answerWith(status: number, body: unknown): void {
  answer = { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
  seen = [];
}

const client = (): AdminClient => new AdminClient({ baseUrl, headers: bearer('tga_test'), credentials: 'include' });

const WALLET = { balanceMicro: 5, heldMicro: 0, topupsMicro: 5, adjustmentsMicro: 0, spentMicro: 0 };

test('sends the method, path, query, body and headers the table and the options say', async () => {
  answerWith(200, { alias: { pattern: 'openai/*', model: 'gpt-4o' } });
  await client().call('removeAlias', { params: { pattern: 'openai/*' } });
  assert.deepEqual(
    [seen[0]!.method, seen[0]!.url, seen[0]!.headers.authorization, seen[0]!.body],
    ['DELETE', '/api/aliases/openai%2F*', 'Bearer tga_test', ''],
  );
  assert.equal(seen[0]!.headers['content-type'], undefined);

  answerWith(200, { entries: [] });
  await client().call('listLogs', { query: { key: 'a b', limit: 5, model: undefined } });
  assert.equal(seen[0]!.url, '/api/logs?key=a+b&limit=5');
  await client().call('listLogs');
  assert.equal(seen[1]!.url, '/api/logs');

  answerWith(200, WALLET);
  await new AdminClient({ baseUrl: `${baseUrl}/` }).call('getWallet');
  assert.deepEqual([seen[0]!.url, seen[0]!.headers.authorization], ['/api/wallet', undefined]);
  answerWith(200, WALLET);
  assert.deepEqual(await client().call('topUp', { body: { amountMicro: 5, note: 'n' } }), WALLET);
  assert.deepEqual(
    [seen[0]!.method, seen[0]!.url, seen[0]!.headers['content-type'], JSON.parse(seen[0]!.body)],
    ['POST', '/api/wallet/topup', 'application/json', { amountMicro: 5, note: 'n' }],
  );
});

test('a reply that does not match its schema is refused, naming where', async () => {
  answerWith(200, { ...WALLET, balanceMicro: '5' });
  const err = await refusal(client().call('getWallet'));
  assert.deepEqual([err.status, err.code], [200, CLIENT_ERRORS.badReply]);
  assert.match(err.message, /GET \/api\/wallet does not match the admin contract \(\/balanceMicro: Expected integer\)/);

  answerWith(200, { keys: [{ id: 'key_1', name: 'k', state: 'lost' }] });
  assert.equal((await refusal(client().call('listKeys'))).code, CLIENT_ERRORS.badReply);

  // Fields the contract does not name are allowed: a newer server may add some.
  answerWith(200, { ...WALLET, creditMicro: 1 });
  assert.deepEqual(await client().call('getWallet'), { ...WALLET, creditMicro: 1 });
});

test('a success with another status than the contract says is refused', async () => {
  answerWith(200, { alias: { pattern: 'a', model: 'b' } });
  const err = await refusal(client().call('addAlias', { body: { pattern: 'a', model: 'b' } }));
  assert.deepEqual(
    [err.status, err.code, err.message],
    [200, CLIENT_ERRORS.badReply, 'POST /api/aliases answered 200; the admin contract says 201.'],
  );
});

test("the server's refusals come back as AdminError with its status, code and message", async () => {
  answerWith(404, { error: { code: 'unknown_line', message: 'There is no line named "x".' } });
  const err = await refusal(client().call('testLine', { params: { name: 'x' } }));
  assert.deepEqual(
    [err.status, err.code, err.message, err.name],
    [404, 'unknown_line', 'There is no line named "x".', 'AdminError'],
  );

  answerWith(500, { oops: true });
  const shapeless = await refusal(client().call('getWallet'));
  assert.deepEqual(
    [shapeless.status, shapeless.code, shapeless.message],
    [500, CLIENT_ERRORS.badReply, '{"oops":true}'],
  );
  answerWith(502, '<html>bad gateway</html>');
  const html = await refusal(client().call('getWallet'));
  assert.deepEqual(
    [html.status, html.code, html.message],
    [502, CLIENT_ERRORS.badReply, 'The gateway answered 502 with a body that is not JSON.'],
  );
});

test('no server: status 0, unreachable; a cancelled call rejects with the abort, not an AdminError', async () => {
  const nobody = new AdminClient({ baseUrl: 'http://127.0.0.1:9' });
  const err = await refusal(nobody.call('getStatus'));
  assert.deepEqual(
    [err.status, err.code, err.message],
    [0, CLIENT_ERRORS.unreachable, 'Cannot reach the Tollgate gateway at http://127.0.0.1:9.'],
  );
  answerWith(200, WALLET);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    client().call('getWallet', { signal: controller.signal }),
    (e: unknown) => !(e instanceof AdminError) && (e as Error).name === 'AbortError',
  );
});

test("a call that outlasts its time limit (the client's, or the call's own) is unreachable, and says so", async () => {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  try {
    const slow = new AdminClient({ baseUrl: base, timeoutMs: 100 });
    const err = await refusal(slow.call('getStatus'));
    assert.deepEqual(
      [err.status, err.code, err.message],
      [0, CLIENT_ERRORS.unreachable, `The gateway at ${base} did not answer within 100 ms.`],
    );
    const own = await refusal(new AdminClient({ baseUrl: base }).call('getStatus', { timeoutMs: 50 }));
    assert.equal(own.message, `The gateway at ${base} did not answer within 50 ms.`);
    // A caller's own signal still cancels with the abort, not an AdminError.
    const controller = new AbortController();
    const pending = slow.call('getStatus', { signal: controller.signal, timeoutMs: 10_000 });
    controller.abort();
    await assert.rejects(pending, (e: unknown) => !(e instanceof AdminError) && (e as Error).name === 'AbortError');
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('the types follow the table (checked by npm run typecheck)', () => {
  // Never run: each line must fail to compile, or typecheck reports an unused @ts-expect-error.
  const _compileOnly = (c: AdminClient): unknown => [
    // @ts-expect-error createKey needs a body
    c.call('createKey'),
    // @ts-expect-error the body's fields are typed
    c.call('topUp', { body: { amountMicro: '5' } }),
    // @ts-expect-error disableKey needs the key's name
    c.call('disableKey', {}),
    // @ts-expect-error listLogs' limit is a number
    c.call('listLogs', { query: { limit: '5' } }),
    // @ts-expect-error no such route
    c.call('listKeyz'),
    c.call('getWallet').then((w) => {
      // @ts-expect-error the reply type is the route's: a wallet has no keys
      return w.keys;
    }),
  ];
  // @ts-expect-error every route needs a handler
  const _handlers: AdminHandlers = { getStatus: () => ({ version: '0', dataDir: '/', url: 'http://127.0.0.1' }) };
  assert.equal(typeof _compileOnly, 'function');
});
