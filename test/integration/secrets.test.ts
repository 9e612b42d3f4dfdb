/**
 * The secret scan: no sk- key, upstream credential or admin token appears in the config, the
 * ledger, the gateway log, the desktop app's log, admin answers or error bodies, even when an
 * upstream echoes the request (headers and all) in an error answer of any status.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { AppLog } from '../../main/app-log.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const UPSTREAM_KEY = 'upstream-credential-7f3a9c2e1b';
const STATUSES = [400, 401, 403, 404, 409, 422, 429, 500, 502, 503];

let echo: Server;
let echoUrl: string;
let gw: TestGateway;
let key: string;
const errorLog = new PassThrough();
let logged = '';
errorLog.on('data', (d: Buffer) => (logged += d.toString()));
const seen: string[] = [];

before(async () => {
  // An upstream that answers every request with an error that repeats the request's headers,
  // as some proxies and self-hosted servers do.
  echo = createServer((req, res) => {
    req.resume();
    const status = Number(/^\/s(\d{3})\//.exec(req.url ?? '')?.[1] ?? 500);
    const message = `bad request; you sent ${JSON.stringify(req.headers)} and authorization: ${req.headers.authorization ?? ''} x-api-key=${req.headers['x-api-key'] ?? ''}`;
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' }, type: 'error', echoed: req.headers }));
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  gw = await startGateway(undefined, undefined, { serve: { errorLog } });
  await gw.admin.topup(5);
  for (const s of STATUSES) {
    await gw.admin.line({
      name: `chat-${s}`,
      protocol: 'openai-chat',
      baseUrl: `${echoUrl}/s${s}/v1`,
      models: [`gpt-4o-mini`],
      apiKey: UPSTREAM_KEY,
      priority: s,
    });
    await gw.admin.line({
      name: `msgs-${s}`,
      protocol: 'anthropic',
      baseUrl: `${echoUrl}/s${s}`,
      models: [`claude-sonnet-4-5`],
      apiKey: UPSTREAM_KEY,
      priority: s,
    });
  }
  key = await gw.admin.key('scanned');
});

after(async () => {
  await gw.close();
  await new Promise((r) => echo.close(r));
});

/** Asks each line in turn: the ones above it are disabled, so each status is met once per interface. */
test('upstream error bodies of every status are masked before they reach the client or the ledger', async () => {
  for (const s of STATUSES) {
    for (const [prefix, path, body, headers] of [
      ['chat', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, {}],
      [
        'msgs',
        '/v1/messages',
        { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { 'anthropic-version': '2023-06-01' },
      ],
    ] as const) {
      for (const other of STATUSES)
        await gw.admin.client.call('updateLine', {
          params: { name: `${prefix}-${other}` },
          body: { enabled: other === s },
        });
      const res = await fetch(gw.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-api-key': key, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assert.ok(res.status >= 400, `${prefix} ${s}: ${res.status}`);
      seen.push(text);
      assert.ok(!text.includes(UPSTREAM_KEY), `${prefix} ${s}: the upstream key reached the client: ${text}`);
      assert.ok(!text.includes(key.slice(3)), `${prefix} ${s}: the client's own key came back: ${text}`);
    }
  }
  const rows = await gw.admin.logs({ limit: 500 });
  assert.ok(rows.length >= STATUSES.length * 2);
  assert.ok(
    rows.some((r) => (r.errorMessage ?? '').includes('[redacted]')),
    'the ledger kept the (masked) upstream message',
  );
});

test('no secret anywhere: config, ledger, gateway log, admin answers', async () => {
  const admin = gw.running.adminToken;
  const secrets = {
    'the sk- key': key.slice(3),
    'the upstream credential': UPSTREAM_KEY,
    'the admin token': admin.slice(4),
  };
  const places: [string, string][] = [];
  for (const f of readdirSync(gw.dataDir)) {
    if (f === 'admin-token') continue;
    places.push([`data file ${f}`, readFileSync(join(gw.dataDir, f)).toString('latin1')]);
  }
  places.push(['the gateway log', logged]);
  for (const [i, t] of seen.entries()) places.push([`error body ${i}`, t]);
  for (const path of [
    '/api/status',
    '/api/keys',
    '/api/lines',
    '/api/logs?limit=500',
    '/api/wallet',
    '/api/doctor',
    '/api/models',
  ]) {
    const r = await fetch(gw.url + path, { headers: { authorization: `Bearer ${admin}` } });
    places.push([`GET ${path}`, await r.text()]);
  }
  for (const [where, text] of places) {
    for (const [what, secret] of Object.entries(secrets)) assert.ok(!text.includes(secret), `${what} is in ${where}`);
  }
});

test("the desktop app's log (main and the gateway process's output) holds none of them", () => {
  const admin = gw.running.adminToken;
  const loginUrl = gw.running.loginUrl();
  const code = new URL(loginUrl).searchParams.get('code')!;
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-applog-scan-'));
  try {
    const log = new AppLog(dir);
    // What the gateway process printed in this run goes to the app log line by line, as
    // gateway-process.ts forwards it, and so do the kinds of line main writes that carry URLs
    // and messages from elsewhere (a blocked navigation, a refused IPC call, an updater error).
    for (const line of logged.split('\n')) if (line.trim()) log.write(`[gateway] ${line}`);
    for (const body of seen) log.write(`[gateway] upstream error: ${body}`);
    log.write(`blocked navigation of the console to ${loginUrl}#/connect`);
    log.write(`refused IPC tollgate:copy-text from ${gw.url}/?token=${admin}`);
    log.write(`updater: request failed: {"authorization":"Bearer ${admin}","x-api-key":"${key}"}`);
    log.write(`tray action set-key failed: The key ${key} does not exist.`);
    log.close();
    const text = readFileSync(join(dir, 'main.log'), 'utf8');
    assert.ok(text.length > 0);
    for (const [what, secret] of Object.entries({
      'the sk- key': key.slice(3),
      'the admin token': admin.slice(4),
      'the upstream credential': UPSTREAM_KEY,
      'the login code': code,
    }))
      assert.ok(!text.includes(secret), `${what} is in the app log`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
