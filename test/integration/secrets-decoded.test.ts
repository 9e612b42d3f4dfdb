/**
 * Masking after decoding: an upstream that echoes its credential JSON-escaped (`\uXXXX` for every
 * character, or PHP's `\/`) in an error body, or in an in-band error event in the middle of a
 * stream, must not get it to the client or into the ledger, on all eight paths: the four client
 * formats passed through (the line speaks the client's format) and translated (it does not).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { PROTOCOLS, type Protocol } from '../helpers/clients.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const CREDENTIAL = 'tg/upstream-credential-5b1e7d';

/** The catalogue model each upstream format's line serves. */
const MODEL_OF: Record<Protocol, string> = {
  'openai-chat': 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  'openai-responses': 'gpt-5-mini',
  gemini: 'gemini-2.5-flash',
};

/** Each client format translated to another, so that every format's upstream reader is met once. */
const TRANSLATED_TO: Record<Protocol, Protocol> = {
  'openai-chat': 'gemini',
  anthropic: 'openai-responses',
  'openai-responses': 'anthropic',
  gemini: 'openai-chat',
};

/** The credential as a JSON string's contents three ways: plain, every character \u-escaped, `/` as `\/`. */
function echoed(): string {
  const unicode = [...CREDENTIAL].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return `key ${CREDENTIAL}; escaped ${unicode}; php ${CREDENTIAL.replace('/', '\\/')}; header x-api-key: ${unicode}`;
}

function formatOf(path: string): Protocol {
  if (path.includes('/chat/completions')) return 'openai-chat';
  if (path.includes('/messages')) return 'anthropic';
  if (path.includes('/responses')) return 'openai-responses';
  return 'gemini';
}

/** One normal event, then the in-band error that echoes the credential, in the upstream's format. */
function hostileStream(format: Protocol): string {
  const msg = echoed();
  switch (format) {
    case 'openai-chat':
      return (
        `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}\n\n` +
        `data: {"error":{"message":"${msg}","type":"server_error"}}\n\n`
      );
    case 'anthropic':
      return (
        `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n` +
        `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n` +
        `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n` +
        `event: error\ndata: {"type":"error","error":{"type":"api_error","message":"${msg}"}}\n\n`
      );
    case 'openai-responses':
      return (
        `event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"m","output":[]}}\n\n` +
        `event: error\ndata: {"type":"error","sequence_number":1,"code":"server_error","message":"${msg}","param":null}\n\n`
      );
    case 'gemini':
      return (
        `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"index":0}],"modelVersion":"m"}\n\n` +
        `data: {"error":{"code":500,"message":"${msg}","status":"INTERNAL"}}\n\n`
      );
  }
}

function hostileError(format: Protocol): string {
  const msg = echoed();
  if (format === 'anthropic') return `{"type":"error","error":{"type":"invalid_request_error","message":"${msg}"}}`;
  if (format === 'gemini') return `{"error":{"code":400,"message":"${msg}","status":"INVALID_ARGUMENT"}}`;
  return `{"error":{"message":"${msg}","type":"invalid_request_error","code":null}}`;
}

let upstream: Server;
let gw: TestGateway;
let key: string;

before(async () => {
  // Streams answer 200 and fail in band; whole answers fail with 400. Both echo the credential.
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const format = formatOf(req.url ?? '');
      const stream = (req.url ?? '').includes('stream') || /"stream":\s*true/.test(body);
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(hostileStream(format));
      } else {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(hostileError(format));
      }
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gw = await startGateway();
  await gw.admin.topup(5);
  for (const format of PROTOCOLS) {
    const baseUrl = format === 'openai-chat' || format === 'openai-responses' ? `${url}/v1` : url;
    await gw.admin.line({ name: format, protocol: format, baseUrl, models: [MODEL_OF[format]], apiKey: CREDENTIAL });
  }
  key = await gw.admin.key('masked');
});

after(async () => {
  await gw?.close();
  await new Promise((r) => upstream.close(r));
});

function request(client: Protocol, model: string, stream: boolean): { path: string; init: RequestInit } {
  const json = (b: unknown, h: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...h },
    body: JSON.stringify(b),
  });
  const bearer = { authorization: `Bearer ${key}` };
  switch (client) {
    case 'openai-chat':
      return {
        path: '/v1/chat/completions',
        init: json({ model, stream, messages: [{ role: 'user', content: 'hi' }] }, bearer),
      };
    case 'anthropic':
      return {
        path: '/v1/messages',
        init: json(
          { model, stream, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] },
          { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        ),
      };
    case 'openai-responses':
      return { path: '/v1/responses', init: json({ model, stream, input: 'hi' }, bearer) };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        init: json({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { 'x-goog-api-key': key }),
      };
  }
}

/** The text as a client's JSON parser reads it: every JSON document in it (whole, or one per SSE data line) decoded. */
function decodedViews(text: string): string[] {
  const views = [text];
  const docs = text.trimStart().startsWith('{') ? [text] : text.split('\n').filter((l) => l.startsWith('data:'));
  for (const d of docs) {
    try {
      views.push(JSON.stringify(JSON.parse(d.replace(/^data:\s*/, '')), null, 0).replace(/\\\//g, '/'));
      views.push(String(JSON.parse(d.replace(/^data:\s*/, ''))?.error?.message ?? ''));
    } catch {
      // Not JSON ([DONE]); the raw view covers it.
    }
  }
  return views;
}

function assertClean(where: string, text: string): void {
  for (const view of decodedViews(text))
    assert.ok(!view.includes(CREDENTIAL), `${where}: the credential got through: ${view}`);
}

for (const client of PROTOCOLS) {
  describe(`${client} client`, () => {
    for (const [path, upstreamFormat] of [
      ['passed through', client],
      ['translated', TRANSLATED_TO[client]],
    ] as const) {
      test(`${path}: an in-band stream error and a 400 body that echo the credential escaped are masked for the client and the ledger`, async () => {
        for (const stream of [true, false]) {
          const r = request(client, MODEL_OF[upstreamFormat], stream);
          const before = (await gw.admin.logs({ limit: 1 }))[0]?.id ?? 0;
          const res = await fetch(gw.url + r.path, r.init);
          const text = await res.text();
          const where = `${client} → ${upstreamFormat} ${stream ? 'stream' : 'whole'}`;
          if (stream) assert.equal(res.status, 200, `${where}: ${text}`);
          else assert.ok(res.status >= 400, `${where}: ${res.status} ${text}`);
          assertClean(where, text);
          const rows = (await gw.admin.logs({ limit: 5 })).filter((row) => row.id > before);
          assert.equal(rows.length, 1, `${where}: one row`);
          assert.ok(rows[0]!.errorMessage, `${where}: the row keeps the error`);
          assertClean(`${where} (ledger)`, JSON.stringify(rows[0]));
          assertClean(`${where} (ledger message)`, rows[0]!.errorMessage!);
          assert.match(rows[0]!.errorMessage!, /\[redacted\]/, `${where}: the message is kept, masked`);
        }
      });
    }
  });
}
