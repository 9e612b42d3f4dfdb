import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { findRunningGateway, realDeps } from '../../main/attach.js';
import { writeRuntime } from '../../gateway/runtime.js';
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
    locked: () => true,
    readUrl: () => 'http://127.0.0.1:1',
    readToken: () => 'tga_x',
    status: () => Promise.reject(new Error('ECONNREFUSED')),
  };
  assert.equal(await findRunningGateway(gw.dataDir, dead), null);
});

test('the admin token is sent to a loopback address only, whatever the runtime file says', async () => {
  let asked = false;
  const lan = {
    locked: () => true,
    readUrl: () => 'http://192.168.1.5:4141',
    readToken: () => gw.running.adminToken,
    status: async () => ((asked = true), { version: '0', url: gw.url, dataDir: gw.dataDir, paused: false }),
  };
  assert.equal(await findRunningGateway(gw.dataDir, lan), null);
  assert.equal(asked, false, 'no request was made');
});

test('a live gateway answering for another data dir, or refusing the token, is not ours', async () => {
  const other = {
    locked: () => true,
    readUrl: () => gw.url,
    readToken: () => gw.running.adminToken,
    status: async () => ({ version: '0', url: gw.url, dataDir: '/somewhere/else', paused: false }),
  };
  assert.equal(await findRunningGateway(gw.dataDir, other), null);
  assert.equal(await findRunningGateway(gw.dataDir, { ...realDeps, readToken: () => 'tga_wrong' }), null);
});

test('a runtime file left by a killed gateway is not probed: the admin token never goes to whatever listens there now', async () => {
  const seen: (string | undefined)[] = [];
  const squatter = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-stale-'));
  try {
    // What a killed gateway leaves: its runtime file, its admin token and its lock file, which no
    // process holds any more.
    const stale = await startGateway(dir);
    const token = stale.running.adminToken;
    await stale.running.close();
    rmSync(stale.home, { recursive: true, force: true });
    writeRuntime(dir, { url: `http://127.0.0.1:${(squatter.address() as AddressInfo).port}`, pid: 1, startedAt: '' });
    writeFileSync(join(dir, 'admin-token'), token + '\n');
    assert.equal(realDeps.locked(dir), false);
    assert.equal(await findRunningGateway(dir), null);
    assert.deepEqual(seen, [], 'nothing was sent to the stale URL');
    // Held by a live gateway, the same data dir is probed and attached to.
    const live = await startGateway(dir);
    try {
      assert.equal(realDeps.locked(dir), true);
      assert.deepEqual(await findRunningGateway(dir), { url: live.url, token: live.running.adminToken });
    } finally {
      await live.running.close();
      rmSync(live.home, { recursive: true, force: true });
    }
  } finally {
    await new Promise((r) => squatter.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the probe asks nothing when the lock is free, whatever the runtime file says', async () => {
  let asked = 0;
  const deps = {
    locked: () => false,
    readUrl: () => 'http://127.0.0.1:4141',
    readToken: () => 'tga_x',
    status: async () => (asked++, { version: '0', url: '', dataDir: '/d', paused: false }),
  };
  assert.equal(await findRunningGateway('/d', deps), null);
  assert.equal(asked, 0);
});
