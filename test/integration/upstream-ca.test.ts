/**
 * Upstream TLS behind inspection: an HTTPS upstream whose certificate a CA of this test signed
 * (as a company proxy re-signs every site) is refused with words that name the fix, and served
 * once the CA file is a setting, through the official SDK; the setting holds at the next start
 * (what `tollgate serve` and the desktop app's gateway process both run); a file that is not a CA
 * bundle is refused when set.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { AdminError } from '../../gateway/contract/admin/index.js';
import { tollgateCli } from '../helpers/cli.js';
import { startGateway, tempDataDir, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';

let ca: TestCa;
let mock: MockUpstream;
let dataDir: string;
let gw: TestGateway;
let key: string;

before(async () => {
  ca = makeTestCa();
  mock = await startMockUpstream({ tls: { key: ca.serverKey, cert: ca.serverCert } });
  dataDir = tempDataDir();
  gw = await startGateway(dataDir);
  await gw.admin.topup(5);
  await gw.admin.line({ name: 'inspected', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
  key = await gw.admin.key('k');
});

after(async () => {
  await gw.close();
  await mock.close();
  rmSync(ca.dir, { recursive: true, force: true });
});

const ask = (g: TestGateway) =>
  g.openai(key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

test('without the CA the upstream is refused, and the error names the setting', async () => {
  assert.match(mock.url, /^https:/);
  const err = await ask(gw).then(
    () => assert.fail('an untrusted certificate was accepted'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OpenAI.APIError);
  assert.equal(err.status, 502);
  assert.match(err.message, /not signed by an authority the gateway trusts \(\w+\).*add its CA in Settings/);
  const probe = await gw.admin.client.call('testLine', { params: { name: 'inspected' } });
  assert.equal(probe.ok, false);
  assert.match(probe.message, /add its CA in Settings/);
  assert.equal(mock.requests.length, 0, 'nothing reached the upstream');
  const s = await gw.admin.client.call('getSettings');
  assert.deepEqual([s.caFile, s.systemCa, s.caAdded, s.caProblem], [null, false, 0, null]);
});

test('a file that is no CA bundle is refused when set, and nothing is stored', async () => {
  for (const [caFile, words] of [
    [join(ca.dir, 'server.key'), /holds no PEM certificate/],
    [join(ca.dir, 'missing.pem'), /cannot be read \(no such file\)/],
    ['ca.pem', /absolute path/],
  ] as const) {
    await assert.rejects(
      gw.admin.client.call('updateSettings', { body: { caFile } }),
      (e: unknown) =>
        e instanceof AdminError && e.status === 400 && e.code === 'invalid_ca_file' && words.test(e.message),
    );
  }
  assert.equal((await gw.admin.client.call('getSettings')).caFile, null);
});

test('with the CA file set the same request is served and billed, at once', async () => {
  const s = await gw.admin.client.call('updateSettings', { body: { caFile: ca.caFile } });
  assert.deepEqual([s.caFile, s.caAdded, s.caProblem], [ca.caFile, 1, null]);
  const answer = await ask(gw);
  assert.ok(answer.choices[0]?.message.content);
  assert.equal(mock.requests.length, 1);
  const probe = await gw.admin.client.call('testLine', { params: { name: 'inspected' } });
  assert.equal(probe.ok, true, probe.message);
  const [row] = await gw.admin.logs();
  assert.equal(row!.status, 200);
  assert.ok(row!.costMicro > 0);
});

test('the CLI shows and sets the CA file (relative to where it runs), and says what is wrong', async () => {
  const set = await tollgateCli(['settings', 'set', '--ca-file', 'ca.pem'], dataDir, process.env, ca.dir);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, new RegExp(`CA file +${ca.caFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  const shown = await tollgateCli(['settings'], dataDir);
  assert.match(shown.stdout, /CAs added +1\n/);
  const bad = await tollgateCli(['settings', 'set', '--system-ca', 'maybe'], dataDir);
  assert.deepEqual([bad.code, bad.stderr.trim()], [1, 'tollgate: --system-ca takes on or off, not "maybe".']);
  const key = await tollgateCli(['settings', 'set', '--ca-file', join(ca.dir, 'server.key')], dataDir);
  assert.equal(key.code, 1);
  assert.match(key.stderr, /holds no PEM certificate/);
});

test('the setting holds at the next start of a gateway on the same data dir', async () => {
  await gw.running.close(); // not gw.close(), which removes the data dir
  gw = await startGateway(dataDir);
  assert.equal((await gw.admin.client.call('getSettings')).caAdded, 1);
  await ask(gw);
  // Cleared: refused again, for new connections at once.
  await gw.admin.client.call('updateSettings', { body: { caFile: null } });
  await assert.rejects(ask(gw), (e: unknown) => e instanceof OpenAI.APIError && e.status === 502);
});

test('the system store is a setting where the runtime can read it, and refused in words where not', async () => {
  const s = await gw.admin.client.call('getSettings');
  if (s.systemCaAvailable) {
    const on = await gw.admin.client.call('updateSettings', { body: { systemCa: true } });
    assert.equal(on.systemCa, true);
    await gw.admin.client.call('updateSettings', { body: { systemCa: false } });
  } else {
    await assert.rejects(
      gw.admin.client.call('updateSettings', { body: { systemCa: true } }),
      (e: unknown) =>
        e instanceof AdminError && e.code === 'system_ca_unavailable' && /Node 22\.15 or later/.test(e.message),
    );
  }
});
