/** Console logins: one-time codes, the session cookie, the console header, logout, and the unchanged token path. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConsoleSessions, cookieName, readCookie } from '../../gateway/admin/session.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
const HOST = '127.0.0.1:4141';

before(async () => {
  gw = await startGateway();
});

after(async () => {
  await gw.close();
});

const inject = (opts: { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string> }) =>
  gw.running.app.inject({ method: opts.method ?? 'GET', url: opts.url, headers: { host: HOST, ...opts.headers } });

async function mintCode(): Promise<{ code: string; url: string; expiresAt: string }> {
  const r = await inject({
    method: 'POST',
    url: '/api/session/code',
    headers: { authorization: `Bearer ${gw.running.adminToken}` },
  });
  assert.equal(r.statusCode, 200);
  return r.json();
}

/** Logs in as the console does: the cookie from Set-Cookie, the page token from the redirect. */
async function login(): Promise<{ id: string; token: string; headers: Record<string, string> }> {
  const { code } = await mintCode();
  const r = await inject({ url: `/login?code=${code}` });
  assert.equal(r.statusCode, 303);
  const setCookie = String(r.headers['set-cookie']);
  const id = readCookie(setCookie.split(';')[0], cookieName(HOST))!;
  const token = new URL(String(r.headers.location), 'http://x').searchParams.get('console') ?? '';
  return { id, token, headers: { cookie: `${cookieName(HOST)}=${id}`, 'x-tollgate-console': token } };
}

test('POST /api/session/code needs the admin token and returns a login URL on the gateway', async () => {
  assert.equal((await inject({ method: 'POST', url: '/api/session/code' })).statusCode, 401);
  const { code, url, expiresAt } = await mintCode();
  assert.match(code, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(url, `${gw.url}/login?code=${code}`);
  const left = Date.parse(expiresAt) - Date.now();
  assert.ok(left > 60_000 && left <= 120_000, `expires in ${left} ms`);
});

test('GET /login trades a code for an HttpOnly SameSite=Strict cookie and redirects to / with the page token (303)', async () => {
  const { code } = await mintCode();
  const r = await inject({ url: `/login?code=${code}` });
  assert.equal(r.statusCode, 303);
  assert.match(String(r.headers.location), /^\/\?console=[A-Za-z0-9_-]{43}$/);
  assert.equal(r.headers['cache-control'], 'no-store');
  const cookie = String(r.headers['set-cookie']);
  assert.match(cookie, /^tollgate_session_4141=[A-Za-z0-9_-]{43}; /);
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=Strict/);
  assert.match(cookie, /; Path=\//);
  assert.ok(!cookie.includes(gw.running.adminToken), 'the cookie is not the admin token');
});

test('a code works once; an unknown code redirects to the login screen with no cookie', async () => {
  const { code } = await mintCode();
  assert.equal((await inject({ url: `/login?code=${code}` })).statusCode, 303);
  for (const url of [`/login?code=${code}`, '/login?code=nope', '/login']) {
    const again = await inject({ url });
    assert.equal(again.statusCode, 303, url);
    assert.equal(again.headers.location, '/?login=expired', url);
    assert.equal(again.headers['set-cookie'], undefined, url);
  }
});

test('codes expire after two minutes and sessions after twelve idle hours', () => {
  let now = 1_000_000;
  const s = new ConsoleSessions(() => now);
  const { code } = s.mintCode();
  now += 120_001;
  assert.equal(s.redeem(code), undefined);
  const { id, pageToken } = s.redeem(s.mintCode().code)!;
  assert.equal(s.check(id, pageToken), 'ok', 'a fresh session is live');
  now += 11 * 3600_000;
  assert.equal(s.check(id, pageToken), 'ok', 'each use extends the session');
  now += 12 * 3600_000 + 1;
  assert.equal(s.check(id, pageToken), 'none');
});

test('HEAD /login (a link preview) does not spend the code', async () => {
  const { code } = await mintCode();
  const head = await gw.running.app.inject({ method: 'HEAD', url: `/login?code=${code}`, headers: { host: HOST } });
  assert.equal(head.headers['set-cookie'], undefined);
  const r = await inject({ url: `/login?code=${code}` });
  assert.equal(r.statusCode, 303);
  assert.match(String(r.headers.location), /^\/\?console=/, 'the code still logs in after the preview');
});

test('a replayed session cookie is refused whatever console header it carries', async () => {
  // What another local server receives when the user's browser visits it on another port: the
  // cookie (browsers do not isolate cookies by port), but never the page token.
  const { id, headers } = await login();
  const cookie = `${cookieName(HOST)}=${id}`;
  assert.equal((await inject({ url: '/api/wallet', headers })).statusCode, 200, 'the console itself gets in');
  for (const value of ['1', 'true', 'x'.repeat(43), id, `${headers['x-tollgate-console']}x`]) {
    const replay = await inject({ url: '/api/wallet', headers: { cookie, 'x-tollgate-console': value } });
    assert.equal(replay.statusCode, 403, value);
    assert.equal(replay.json().error.code, 'console_header_required');
    const write = await inject({
      method: 'POST',
      url: '/api/session/code',
      headers: { cookie, 'x-tollgate-console': value },
    });
    assert.equal(write.statusCode, 403, `minting a code with ${value}`);
  }
  const csv = await inject({ url: '/api/logs.csv?console=1', headers: { cookie } });
  assert.equal(csv.statusCode, 403, 'the download needs the page token too');
  // The console page itself hands out no token to a cookie holder.
  const page = await inject({ url: '/', headers: { cookie, accept: 'text/html' } });
  assert.ok(!page.body.includes(headers['x-tollgate-console']!), 'the page does not embed the token');
});

test('the cookie authorises admin requests only together with the page token', async () => {
  const { id, token } = await login();
  const cookie = `${cookieName(HOST)}=${id}`;
  const ok = await inject({ url: '/api/wallet', headers: { cookie, 'x-tollgate-console': token } });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().balanceMicro, 0);
  const bare = await inject({ url: '/api/wallet', headers: { cookie } });
  assert.equal(bare.statusCode, 403);
  assert.equal(bare.json().error.code, 'console_header_required');
  const forged = await inject({
    url: '/api/wallet',
    headers: { cookie: `${cookieName(HOST)}=${id}x`, 'x-tollgate-console': token },
  });
  assert.equal(forged.statusCode, 401);
  // The cookie of another port's gateway is not this one's.
  const otherPort = await inject({
    url: '/api/wallet',
    headers: { cookie: `tollgate_session_9999=${id}`, 'x-tollgate-console': token },
  });
  assert.equal(otherPort.statusCode, 401);
});

test('the Host/Origin guard still runs first for cookie requests', async () => {
  const { headers } = await login();
  const cross = await inject({ url: '/api/wallet', headers: { ...headers, origin: 'http://evil.example' } });
  assert.equal(cross.json().error.code, 'forbidden_origin');
  const site = await inject({ url: '/api/wallet', headers: { ...headers, 'sec-fetch-site': 'cross-site' } });
  assert.equal(site.json().error.code, 'forbidden_origin');
  const rebinding = await gw.running.app.inject({
    method: 'GET',
    url: '/api/wallet',
    headers: { ...headers, host: 'evil.example:4141' },
  });
  assert.equal(rebinding.json().error.code, 'forbidden_host');
  const login403 = await gw.running.app.inject({
    method: 'GET',
    url: '/login?code=x',
    headers: { host: 'evil.example' },
  });
  assert.equal(login403.statusCode, 403);
});

test('logout ends the session and clears the cookie', async () => {
  const { headers } = await login();
  const out = await inject({ method: 'POST', url: '/api/session/logout', headers });
  assert.equal(out.statusCode, 200);
  assert.match(String(out.headers['set-cookie']), /^tollgate_session_4141=; .*Max-Age=0/);
  assert.equal((await inject({ url: '/api/wallet', headers })).statusCode, 401);
});

test('the CSV download takes the page token in the query (a plain link), and streams the filtered log', async () => {
  const { id, token } = await login();
  const cookie = `${cookieName(HOST)}=${id}`;
  const csv = await inject({ url: `/api/logs.csv?status=error&since=0&console=${token}`, headers: { cookie } });
  assert.equal(csv.statusCode, 200);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  assert.match(
    String(csv.headers['content-disposition']),
    /^attachment; filename="tollgate-usage-\d{4}-\d\d-\d\d\.csv"$/,
  );
  assert.match(csv.body, /^id,time,request_id,/);
  // The JSON log still needs the header, and the download still needs a session.
  assert.equal((await inject({ url: '/api/logs', headers: { cookie } })).statusCode, 403);
  assert.equal((await inject({ url: '/api/logs.csv' })).statusCode, 401);
  assert.equal((await inject({ url: '/api/logs.csv', headers: { cookie } })).statusCode, 403);
  assert.equal(
    (await inject({ url: `/api/logs.csv?status=nope&console=${token}`, headers: { cookie } })).statusCode,
    400,
  );
  assert.equal(
    (await inject({ url: `/api/logs.csv?console=${token}`, headers: { cookie, 'sec-fetch-site': 'cross-site' } }))
      .statusCode,
    403,
  );
});

test('wrong login codes are counted and, after a burst, slowed', async () => {
  const before = (await gw.admin.client.call('getStatus')).unauthenticatedRequests ?? 0;
  const started = Date.now();
  for (let i = 0; i < 13; i++) assert.equal((await inject({ url: `/login?code=guess${i}` })).statusCode, 303);
  const after = (await gw.admin.client.call('getStatus')).unauthenticatedRequests ?? 0;
  assert.ok(after - before >= 13, `${after - before} counted`);
  assert.ok(Date.now() - started >= 300, `13 guesses took ${Date.now() - started} ms: not slowed`);
});
