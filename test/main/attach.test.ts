import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { findRunningGateway, realDeps } from '../../main/attach.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
before(async () => {
  gw = await startGateway();
});
after(async () => {
  await gw.close();
});

test('attaches to the gateway serving this data dir, found through its runtime file and admin token', async () => {
  assert.deepEqual(await findRunningGateway(gw.dataDir), { url: gw.url, token: gw.running.adminToken });
});

test('a data dir with no runtime file, or a dead one, means start our own', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'tollgate-empty-'));
  try {
    assert.equal(await findRunningGateway(empty), null);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
  const dead = {
    readUrl: () => 'http://127.0.0.1:1',
    readToken: () => 'tga_x',
    status: () => Promise.reject(new Error('ECONNREFUSED')),
  };
  assert.equal(await findRunningGateway(gw.dataDir, dead), null);
});

test('the admin token is sent to a loopback address only, whatever the runtime file says', async () => {
  let asked = false;
  const lan = {
    readUrl: () => 'http://192.168.1.5:4141',
    readToken: () => gw.running.adminToken,
    status: async () => ((asked = true), { version: '0', url: gw.url, dataDir: gw.dataDir, paused: false }),
  };
  assert.equal(await findRunningGateway(gw.dataDir, lan), null);
  assert.equal(asked, false, 'no request was made');
});

test('a live gateway answering for another data dir, or refusing the token, is not ours', async () => {
  const other = {
    readUrl: () => gw.url,
    readToken: () => gw.running.adminToken,
    status: async () => ({ version: '0', url: gw.url, dataDir: '/somewhere/else', paused: false }),
  };
  assert.equal(await findRunningGateway(gw.dataDir, other), null);
  assert.equal(await findRunningGateway(gw.dataDir, { ...realDeps, readToken: () => 'tga_wrong' }), null);
});
