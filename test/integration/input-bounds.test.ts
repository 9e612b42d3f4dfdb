/**
 * Bounded, honest input on every interface alike (chat, Messages, Responses, Gemini) and on the
 * admin API: echoed values cut short, one body limit answered 413 in the client's own shape,
 * invalid UTF-8 refused with its byte offset, a prompt far beyond the context window refused
 * before it is sent or charged, repeated query parameters refused, internal errors logged.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_BODY_LIMIT } from '../../gateway/server.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let small: TestGateway;
let key: string;
let smallKey: string;
const errorLog = new PassThrough();
let logged = '';
errorLog.on('data', (d: Buffer) => (logged += d.toString()));

const SMALL_LIMIT = 256 * 1024;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway(undefined, undefined, { serve: { errorLog } });
  small = await startGateway(undefined, undefined, { serve: { bodyLimitBytes: SMALL_LIMIT } });
  for (const g of [gw, small]) {
    await g.admin.topup(5);
    await g.admin.line({ name: 'chat', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
  }
  key = await gw.admin.key('k');
  smallKey = await small.admin.key('k');
});

after(async () => {
  await gw.close();
  await small.close();
  await mock.close();
});

type Shape = 'openai' | 'anthropic' | 'gemini';
interface Surface {
  name: string;
  shape: Shape;
  path: (model: string) => string;
  body: (model: string, text: string) => Record<string, unknown>;
  headers?: Record<string, string>;
}

const SURFACES: Surface[] = [
  {
    name: 'chat',
    shape: 'openai',
    path: () => '/v1/chat/completions',
    body: (model, text) => ({ model, messages: [{ role: 'user', content: text }] }),
  },
  {
    name: 'Messages',
    shape: 'anthropic',
    path: () => '/v1/messages',
    body: (model, text) => ({ model, max_tokens: 16, messages: [{ role: 'user', content: text }] }),
    headers: { 'anthropic-version': '2023-06-01' },
  },
  { name: 'Responses', shape: 'openai', path: () => '/v1/responses', body: (model, text) => ({ model, input: text }) },
  {
    name: 'Gemini',
    shape: 'gemini',
    path: (model) => `/v1beta/models/${model}:generateContent`,
    body: (_model, text) => ({ contents: [{ role: 'user', parts: [{ text }] }] }),
  },
];

async function post(
  g: TestGateway,
  k: string,
  s: Surface,
  model: string,
  body: string | Uint8Array,
): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(g.url + s.path(model), {
    method: 'POST',
    headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json', ...s.headers },
    body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** The error message, read from the surface's own error shape (which it must have). */
function messageOf(s: Surface, body: any): string {
  if (s.shape === 'anthropic') {
    assert.equal(body.type, 'error');
    return body.error.message as string;
  }
  if (s.shape === 'gemini') {
    assert.equal(typeof body.error.code, 'number');
    assert.equal(typeof body.error.status, 'string');
    return body.error.message as string;
  }
  assert.equal(typeof body.error.type, 'string');
  return body.error.message as string;
}

describe('echoed values', () => {
  for (const s of SURFACES) {
    test(`${s.name}: a 2 MB model id is not repeated whole in the 404, nor stored whole in the ledger`, async () => {
      // Gemini names the model in the path, which HTTP bounds; a long one still must not come back whole.
      const model = s.shape === 'gemini' ? 'm'.repeat(8_000) : 'm'.repeat(2_000_000);
      const r = await post(gw, key, s, model, JSON.stringify(s.body(model, 'hi')));
      assert.equal(r.status, 404, r.text.slice(0, 300));
      assert.ok(r.text.length < 2_000, `a ${r.text.length}-byte answer`);
      assert.match(messageOf(s, r.body), /m{80}… \(\d+ characters\)/);
      const row = (await gw.admin.logs({ limit: 1 }))[0]!;
      assert.ok((row.model ?? '').length < 200, `the ledger row's model has ${row.model?.length} characters`);
    });
  }

  test('an unknown path is not repeated whole either', async () => {
    const r = await fetch(`${gw.url}/${'p'.repeat(10_000)}`, { method: 'POST' });
    const text = await r.text();
    assert.equal(r.status, 404);
    assert.ok(text.length < 1_000, `a ${text.length}-byte answer`);
  });

  test('a path with a malformed %-escape is refused in an error shape that echoes neither the path nor ?key=', async () => {
    const secret = 'sk-' + 'q'.repeat(48);
    for (const [method, path] of [
      ['POST', `/v1beta/models/x%ZZ:generateContent?key=${secret}`],
      ['POST', `/v1/chat/completions%ZZ?key=${secret}`],
      ['GET', `/v1/models/%E0%A4%A?key=${secret}`],
    ] as const) {
      const r = await fetch(gw.url + path, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      const text = await r.text();
      assert.equal(r.status, 400, text);
      assert.ok(!text.includes(secret.slice(3)), `the key came back: ${text}`);
      assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'bad_url', text);
    }
  });
});

describe('the body limit', () => {
  test(`is ${DEFAULT_BODY_LIMIT / 1024 / 1024} MiB unless set: a larger body is refused with 413`, async () => {
    const s = SURFACES[0]!;
    const r = await post(
      gw,
      key,
      s,
      'gpt-4o-mini',
      JSON.stringify(s.body('gpt-4o-mini', 'x'.repeat(DEFAULT_BODY_LIMIT + 1024))),
    );
    assert.equal(r.status, 413);
    assert.equal(r.body.error.code, 'body_too_large');
    assert.equal(mock.requests.length, 0, 'nothing was forwarded');
  });

  for (const s of SURFACES) {
    test(`${s.name}: a body over the configured limit gets 413 in the client's shape, is not forwarded and costs nothing`, async () => {
      const before = mock.requests.length;
      const balance = (await small.admin.wallet()).balanceMicro;
      const r = await post(
        small,
        smallKey,
        s,
        'gpt-4o-mini',
        JSON.stringify(s.body('gpt-4o-mini', 'word '.repeat(SMALL_LIMIT / 4))),
      );
      assert.equal(r.status, 413, r.text.slice(0, 300));
      assert.match(messageOf(s, r.body), /larger than 0\.3 MB/);
      assert.equal(mock.requests.length, before);
      assert.equal((await small.admin.wallet()).balanceMicro, balance);
      const ok = await post(
        small,
        smallKey,
        s,
        'gpt-4o-mini',
        JSON.stringify(s.body('gpt-4o-mini', 'word '.repeat(SMALL_LIMIT / 8))),
      );
      assert.equal(ok.status, 200, ok.text.slice(0, 300));
    });
  }

  test('the admin API takes 1 MB bodies at most, refused in its own shape', async () => {
    const r = await fetch(`${gw.url}/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.running.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'big', note: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(r.status, 413);
    assert.equal(((await r.json()) as any).error.code, 'body_too_large');
  });
});

describe('invalid UTF-8', () => {
  for (const s of SURFACES) {
    test(`${s.name}: a body with invalid UTF-8 is refused with 400 naming the byte offset, not forwarded with U+FFFD`, async () => {
      const before = mock.requests.length;
      const json = JSON.stringify(s.body('gpt-4o-mini', 'hé@@'));
      const at = Buffer.from(json.slice(0, json.indexOf('@@'))).length;
      const bytes = Buffer.from(json);
      bytes[at] = 0xff;
      const r = await post(gw, key, s, 'gpt-4o-mini', bytes);
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.match(messageOf(s, r.body), new RegExp(`not valid UTF-8: byte ${at} \\(0xff\\)`));
      assert.equal(mock.requests.length, before);
    });
  }

  test('chat: a body that holds U+FFFD itself, well-formed, is forwarded as it came', async () => {
    const before = mock.requests.length;
    const text = 'replacement \uFFFD, accent é, emoji 🙂';
    const r = await post(
      gw,
      key,
      SURFACES[0]!,
      'gpt-4o-mini',
      Buffer.from(JSON.stringify(SURFACES[0]!.body('gpt-4o-mini', text))),
    );
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(mock.requests.length, before + 1);
    assert.equal(mock.requests.at(-1)!.body.messages[0].content, text);
  });

  test('the admin API refuses it too', async () => {
    const r = await fetch(`${gw.url}/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.running.adminToken}`, 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    });
    assert.equal(r.status, 400);
    const body = (await r.json()) as any;
    assert.equal(body.error.code, 'invalid_utf8');
    assert.match(body.error.message, /byte 10 \(0xc3\)/);
  });
});

describe('a prompt far beyond the context window', () => {
  for (const s of SURFACES) {
    test(`${s.name}: refused with 400 before it is sent or charged`, async () => {
      const model = await gw.admin.modelOf('gpt-4o-mini');
      const before = mock.requests.length;
      const balance = (await gw.admin.wallet()).balanceMicro;
      // Text of about 3 × the window in tokens (a word of 5 bytes is about a token).
      const r = await post(
        gw,
        key,
        s,
        'gpt-4o-mini',
        JSON.stringify(s.body('gpt-4o-mini', 'word '.repeat(model.contextWindow * 3))),
      );
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.match(messageOf(s, r.body), /far longer than the context window of gpt-4o-mini/);
      assert.equal(mock.requests.length, before);
      assert.equal((await gw.admin.wallet()).balanceMicro, balance);
      assert.equal((await gw.admin.wallet()).heldMicro, 0);
    });
  }

  test('inline images and documents do not count as text', async () => {
    const model = await gw.admin.modelOf('gpt-4o-mini');
    // Base64 of the window's size × 4 bytes, in Anthropic's own image block (no data: URI).
    const data = Buffer.alloc(model.contextWindow * 3, 7).toString('base64');
    const body = {
      model: 'gpt-4o-mini',
      max_tokens: 16,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
            { type: 'text', text: 'what is this?' },
          ],
        },
      ],
    };
    const r = await post(gw, key, SURFACES[1]!, 'gpt-4o-mini', JSON.stringify(body));
    assert.notEqual(r.status, 400, r.text.slice(0, 300));
  });
});

describe('repeated query parameters', () => {
  test('?key=A&key=B on a model route is a 400, not a 500', async () => {
    const r = await fetch(`${gw.url}/v1beta/models?key=${key}&key=${key}`);
    assert.equal(r.status, 400);
    const body = (await r.json()) as any;
    assert.match(body.error.message, /"key" is given 2 times/);
  });

  test('on the admin API too', async () => {
    for (const q of ['key=a&key=b', 'limit=1&limit=2', 'model=a&model=b']) {
      const r = await fetch(`${gw.url}/api/logs?${q}`, {
        headers: { authorization: `Bearer ${gw.running.adminToken}` },
      });
      assert.equal(r.status, 400, q);
      assert.equal(((await r.json()) as any).error.code, 'repeated_query_parameter', q);
    }
  });
});

describe('internal errors', () => {
  test('each 500 is written to the gateway log with its request id and stack, and nothing secret', async () => {
    const billing = gw.running.gateway.billing;
    const admit = billing.admit.bind(billing);
    billing.admit = () => {
      throw new TypeError('a bug in admission');
    };
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(res.status, 500);
      assert.match(((await res.json()) as any).error.message, /see the gateway log/);
      const requestId = res.headers.get('x-request-id')!;
      const line = logged.split('\n').find((l) => l.includes(requestId));
      assert.ok(line, `no log line for ${requestId} in ${JSON.stringify(logged)}`);
      const entry = JSON.parse(line) as { level: string; error: string; stack: string; path: string };
      assert.equal(entry.level, 'error');
      assert.equal(entry.error, 'a bug in admission');
      assert.match(entry.stack, /TypeError/);
      assert.equal(entry.path, '/v1/chat/completions');
      assert.ok(!logged.includes(key.slice(3)), 'the key is not logged');
    } finally {
      billing.admit = admit;
    }
  });
});

describe('connections', () => {
  test('a request must arrive whole within the request timeout', async () => {
    const { REQUEST_TIMEOUT_MS } = await import('../../gateway/server.js');
    const server = small.running.app.server;
    assert.equal(server.requestTimeout, REQUEST_TIMEOUT_MS);
    assert.ok(server.headersTimeout > 0 && server.headersTimeout <= REQUEST_TIMEOUT_MS);
  });
});
