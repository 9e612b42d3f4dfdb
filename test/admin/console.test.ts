/** The console at `/`: HTML with a strict CSP for browsers, the old JSON for clients, HEAD for probes. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { REPO, startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
const DIST = join(REPO, 'renderer/dist');
const built = existsSync(join(DIST, 'index.html'));

before(async () => {
  gw = await startGateway();
});

after(async () => {
  await gw.close();
});

test('HEAD / stays an empty 200 and JSON clients keep getting {name, ok}', async () => {
  const head = await gw.running.app.inject({ method: 'HEAD', url: '/' });
  assert.equal(head.statusCode, 200);
  assert.equal(head.body, '');
  for (const accept of [undefined, 'application/json', '*/*']) {
    const r = await gw.running.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
    assert.deepEqual(r.json(), { name: 'Tollgate', ok: true }, String(accept));
  }
});

test(
  'a browser gets the console with a strict CSP and a fresh nonce per response',
  { skip: built ? false : 'renderer/dist not built' },
  async () => {
    const get = () =>
      gw.running.app.inject({
        method: 'GET',
        url: '/',
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
    const [a, b] = [await get(), await get()];
    assert.equal(a.statusCode, 200);
    assert.match(String(a.headers['content-type']), /^text\/html/);
    const csp = String(a.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    const nonce = csp.match(/'nonce-([^']+)'/)![1]!;
    assert.ok(a.body.includes(`nonce="${nonce}"`), 'the page carries the header nonce');
    assert.ok(!a.body.includes('__CSP_NONCE__'), 'every nonce placeholder is replaced');
    assert.notEqual(String(b.headers['content-security-policy']), csp, 'nonces are not reused');
    assert.equal(a.headers['cache-control'], 'no-store');
    assert.equal(a.headers['x-frame-options'], 'DENY');
    // Every script and stylesheet the page names is served from /assets/ with a long cache.
    const assets = [...a.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(
      assets.some((p) => p.endsWith('.js')),
      `no script in ${assets.join(', ')}`,
    );
    for (const path of assets) {
      const r = await gw.running.app.inject({ method: 'GET', url: path });
      assert.equal(r.statusCode, 200, path);
      assert.match(String(r.headers['cache-control']), /immutable/, path);
    }
    assert.equal((await gw.running.app.inject({ method: 'GET', url: '/assets/../package.json' })).statusCode, 404);
  },
);

test(
  'the built console holds no secret and stays under 300 KB of gzipped JavaScript',
  { skip: built ? false : 'renderer/dist not built' },
  () => {
    const files = readdirSync(join(DIST, 'assets'));
    let gz = 0;
    for (const f of files) {
      const text = readFileSync(join(DIST, 'assets', f), 'utf8');
      assert.doesNotMatch(text, /sk-[A-Za-z0-9]{20,}/, f);
      assert.doesNotMatch(text, /tga_[A-Za-z0-9_-]{20,}/, f);
      if (f.endsWith('.js')) gz += gzipSync(text).length;
    }
    assert.ok(gz < 300 * 1024, `console JS is ${gz} bytes gzipped`);
  },
);
