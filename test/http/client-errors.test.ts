/**
 * Slow senders: a client that trickles its body slower than the request timeout allows gets a 408
 * in its own protocol's shape (or the admin API's), the connection is closed, the request has its
 * one ledger row and nothing stays held; a client whose headers never end gets the first format's
 * shape and is closed. The timeout and Node's check interval are set short for the test
 * (`requestTimeoutMs`, `requestCheckIntervalMs`); the defaults are checked as they are.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { REQUEST_CHECK_INTERVAL_MS, REQUEST_TIMEOUT_MS } from '../../gateway/server.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const TIMEOUT_MS = 600;
const CHECK_MS = 100;

let mock: MockUpstream;
let gw: TestGateway;
let key = '';

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway(undefined, undefined, {
    serve: { requestTimeoutMs: TIMEOUT_MS, requestCheckIntervalMs: CHECK_MS },
  });
  await gw.admin.topup(5);
  await gw.admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
  key = await gw.admin.key('slow');
});

after(async () => {
  await gw?.close();
  await mock?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Milliseconds from the first byte sent to the socket's close. */
  closedAfterMs: number;
  /** Body bytes the client had sent when the answer came. */
  sent: number;
}

/**
 * Sends the request line and headers at once, then the body one byte every 100 ms (its whole
 * length would take 30 s), and reads until the server closes the socket; fails if it never does.
 */
function trickle(path: string, headers: Record<string, string>, opts: { endHeaders?: boolean } = {}): Promise<Answer> {
  const { port } = new URL(gw.url);
  const body = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', pad: 'x'.repeat(300) }));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let received = '';
    let sent = 0;
    let answeredAt = -1;
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection; got so far: ${JSON.stringify(received)}`));
    }, 15_000);
    socket.on('connect', () => {
      const head = [
        `POST ${path} HTTP/1.1`,
        'host: 127.0.0.1',
        `content-length: ${body.length}`,
        'content-type: application/json',
      ]
        .concat(Object.entries(headers).map(([k, v]) => `${k}: ${v}`))
        .join('\r\n');
      socket.write(opts.endHeaders === false ? `${head}\r\n` : `${head}\r\n\r\n`);
      timer = setInterval(() => {
        if (opts.endHeaders === false) return void socket.write('x');
        if (sent < body.length) socket.write(body.subarray(sent, ++sent));
      }, 100);
    });
    socket.on('data', (d: Buffer) => {
      if (answeredAt < 0) answeredAt = sent;
      received += d.toString('utf8');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(guard);
      const [head = '', text = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const hs = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // left as text, for the assertion to show
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: hs,
        body: parsed,
        closedAfterMs: Date.now() - started,
        sent: answeredAt,
      });
    });
  });
}

describe('a body trickled slower than the request timeout', () => {
  test("each model protocol: a 408 in the client's own shape, the connection closed, one row, nothing held", async () => {
    const before = (await gw.admin.logs({ key: 'slow' })).length;
    const openai = await trickle('/v1/chat/completions', { authorization: `Bearer ${key}` });
    const anthropic = await trickle('/v1/messages', { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
    const gemini = await trickle('/v1beta/models/gpt-4o-mini:generateContent', { 'x-goog-api-key': key });
    for (const [name, a] of Object.entries({ openai, anthropic, gemini })) {
      assert.equal(a.status, 408, `${name}: ${JSON.stringify(a)}`);
      assert.equal(a.headers.connection, 'close', name);
      assert.ok(a.sent > 0 && a.sent < 300, `${name}: answered while the body was still coming (${a.sent} bytes sent)`);
      assert.ok(a.closedAfterMs < 5_000, `${name}: closed after ${a.closedAfterMs} ms`);
    }
    const message = /did not arrive whole within 0\.6 s: its body came too slowly/;
    const o = openai.body as { error: { message: string; code: string; type: string } };
    assert.equal(o.error.code, 'request_timeout');
    assert.match(o.error.message, message);
    const an = anthropic.body as { type: string; error: { type: string; message: string } };
    assert.equal(an.type, 'error');
    assert.match(an.error.message, message);
    const ge = gemini.body as { error: { code: number; status: string; message: string } };
    assert.deepEqual([ge.error.code, ge.error.status], [408, 'DEADLINE_EXCEEDED']);
    assert.match(ge.error.message, message);
    assert.equal(mock.requests.length, 0, 'nothing reached the upstream');

    const rows = (await gw.admin.logs({ key: 'slow' })).slice(0, 3);
    assert.equal((await gw.admin.logs({ key: 'slow' })).length - before, 3, 'one row per request');
    assert.deepEqual(rows.map((r) => [r.status, r.errorCode, r.costMicro]).sort(), [
      [408, 'request_timeout', 0],
      [408, 'request_timeout', 0],
      [408, 'request_timeout', 0],
    ]);
    assert.deepEqual(rows.map((r) => r.inboundProtocol).sort(), ['anthropic', 'gemini', 'openai-chat']);
    assert.equal((await gw.admin.wallet()).heldMicro, 0);
    assert.equal((await gw.admin.doctor()).ok, true);
    // The gateway serves the next honest request as ever.
    const ok = await gw
      .openai(key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.ok(ok.choices[0]?.message.content);
  });

  test("the admin API: a 408 in the admin API's shape, the connection closed", async () => {
    const a = await trickle('/api/keys', { authorization: `Bearer ${gw.running.adminToken}` });
    assert.equal(a.status, 408, JSON.stringify(a));
    assert.equal(a.headers.connection, 'close');
    assert.equal((a.body as { error: { code: string } }).error.code, 'request_timeout');
    assert.equal((await gw.admin.call('listKeys')).keys.length, 1, 'no key was made');
  });

  test("headers that never end: the first format's shape, written raw, and the socket closed", async () => {
    const a = await trickle(
      '/v1/chat/completions',
      { authorization: `Bearer ${key}`, 'x-slow': 'y' },
      { endHeaders: false },
    );
    assert.equal(a.status, 408, JSON.stringify(a));
    assert.equal(a.headers.connection, 'close');
    assert.equal((a.body as { error: { code: string } }).error.code, 'request_timeout');
    assert.ok(!JSON.stringify(a.body).includes(key), 'nothing the client sent is echoed');
  });
});

test('the defaults: a request must arrive whole within 120 s, checked every 30 s', async () => {
  const other = await startGateway();
  try {
    const server = other.running.app.server;
    assert.deepEqual([REQUEST_TIMEOUT_MS, REQUEST_CHECK_INTERVAL_MS], [120_000, 30_000]);
    assert.equal(server.requestTimeout, REQUEST_TIMEOUT_MS);
    assert.equal(server.headersTimeout, 60_000);
  } finally {
    await other.close();
  }
});
