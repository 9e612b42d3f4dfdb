/**
 * GET and PATCH /api/settings and what each setting does, against a real gateway, the openai SDK
 * and the mock upstream: bodies kept only when on, Responses chains only when on, retention that
 * prunes at start and keeps the money, the LAN confirmation, host and port applied at next start.
 */
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { refusal, startGateway, tempDataDir, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

describe('settings', () => {
  let mock: MockUpstream;
  let gw: TestGateway;
  let secret = '';

  before(async () => {
    mock = await startMockUpstream();
    gw = await startGateway();
    await gw.admin.topup(10);
    await gw.admin.line({ name: 'local', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
    secret = await gw.admin.key('app');
  });
  after(async () => {
    await gw?.close();
    await mock?.close();
  });

  test('the defaults, then a change that persists in config.json and reads back', async () => {
    const s = await gw.admin.client.call('getSettings');
    assert.deepEqual(s, {
      host: '127.0.0.1',
      port: 4141,
      retentionDays: null,
      storeBodies: false,
      storeResponses: true,
      lowBalanceMicro: 1_000_000,
      caFile: null,
      systemCa: false,
      systemCaAvailable: typeof (tls as { getCACertificates?: unknown }).getCACertificates === 'function',
      caAdded: 0,
      caProblem: null,
      listening: gw.url,
      lan: false,
    });
    const changed = await gw.admin.client.call('updateSettings', { body: { lowBalanceMicro: 5_000_000, port: 4999 } });
    assert.equal(changed.lowBalanceMicro, 5_000_000);
    assert.equal(changed.port, 4999);
    assert.equal(changed.listening, gw.url, 'the port applies at the next start');
    const stored = JSON.parse(readFileSync(join(gw.dataDir, 'config.json'), 'utf8')) as { settings: unknown };
    assert.deepEqual(stored.settings, { lowBalanceMicro: 5_000_000, port: 4999 });
    assert.equal(
      (await gw.admin.client.call('updateSettings', { body: { lowBalanceMicro: null } })).lowBalanceMicro,
      null,
    );
  });

  test('a host beyond loopback needs allowLan: true', async () => {
    const err = await refusal(gw.admin.client.call('updateSettings', { body: { host: '0.0.0.0' } }));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'lan_confirmation_required');
    assert.equal((await gw.admin.client.call('getSettings')).host, '127.0.0.1');
    const ok = await gw.admin.client.call('updateSettings', { body: { host: '0.0.0.0', allowLan: true } });
    assert.deepEqual([ok.host, ok.lan], ['0.0.0.0', true]);
    const back = await gw.admin.client.call('updateSettings', { body: { host: 'localhost' } });
    assert.deepEqual([back.host, back.lan], ['localhost', false]);
    const bad = await refusal(gw.admin.client.call('updateSettings', { body: { port: 70000 } }));
    assert.equal(bad.code, 'invalid_request');
  });

  test('request bodies are kept only while storeBodies is on, and turning it off deletes them', async () => {
    const client = gw.openai(secret);
    const off = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'not kept' }] })
      .withResponse();
    const offId = off.response.headers.get('x-request-id')!;
    const none = await refusal(gw.admin.client.call('getRequestBody', { params: { requestId: offId } }));
    assert.equal(none.status, 404);
    assert.match(none.message, /storing request bodies is off/);
    await gw.admin.client.call('updateSettings', { body: { storeBodies: true } });
    const on = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'kept body 42' }] })
      .withResponse();
    const onId = on.response.headers.get('x-request-id')!;
    const body = await gw.admin.client.call('getRequestBody', { params: { requestId: onId } });
    assert.equal(body.truncated, false);
    assert.equal((JSON.parse(body.body) as { messages: { content: string }[] }).messages[0]!.content, 'kept body 42');
    assert.ok(
      (await gw.admin.logs()).some((e) => e.requestId === onId),
      'the id is the one the log shows',
    );
    await gw.admin.client.call('updateSettings', { body: { storeBodies: false } });
    assert.equal((await refusal(gw.admin.client.call('getRequestBody', { params: { requestId: onId } }))).status, 404);
    // Nor readable from the files: the database's free pages or the write-ahead log.
    for (const f of ['bodies.sqlite', 'bodies.sqlite-wal']) {
      let bytes = '';
      try {
        bytes = readFileSync(join(gw.dataDir, f)).toString('latin1');
      } catch {
        continue;
      }
      assert.ok(!bytes.includes('kept body 42'), `the prompt is still in ${f}`);
    }
  });

  test('Responses chains are stored only while storeResponses is on', async () => {
    const client = gw.openai(secret);
    const first = await client.responses.create({ model: 'gpt-4o-mini', input: 'remember 7' });
    const second = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'and?',
      previous_response_id: first.id,
    });
    assert.equal(second.status, 'completed');
    await gw.admin.client.call('updateSettings', { body: { storeResponses: false } });
    await assert.rejects(
      client.responses.create({ model: 'gpt-4o-mini', input: 'and?', previous_response_id: first.id }),
      (e: { status?: number }) => e.status === 400,
    );
    const third = await client.responses.create({ model: 'gpt-4o-mini', input: 'not stored' });
    await gw.admin.client.call('updateSettings', { body: { storeResponses: true } });
    await assert.rejects(
      client.responses.create({ model: 'gpt-4o-mini', input: 'and?', previous_response_id: third.id }),
      (e: { status?: number }) => e.status === 400,
    );
  });

  test('retention prunes old rows when set and the doctor still finds the money whole', async () => {
    const client = gw.openai(secret);
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'recent' }] });
    await gw.admin.client.call('adjustWallet', { body: { amountMicro: -1_000_000, note: 'correction' } });
    // Age the rows logged so far by 40 days, as if written then (the ledger is shared with the running gateway through WAL).
    const db = new Database(join(gw.dataDir, 'ledger.sqlite'));
    const aged = db
      .prepare('UPDATE requests SET ts = ts - ? WHERE id <= (SELECT MAX(id) - 1 FROM requests)')
      .run(40 * 86_400_000).changes;
    db.close();
    assert.ok(aged >= 2);
    const before = (await gw.admin.logs()).length;
    await gw.admin.client.call('updateSettings', { body: { retentionDays: 30 } });
    assert.equal((await gw.admin.logs()).length, before - aged);
    const report = await gw.admin.doctor();
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.match(report.checks.find((c) => c.name === 'ledger invariant')!.detail, /pruned by retention/);
  });
});

test('a bracketed IPv6 host is stored as the address to listen on, and the gateway starts on it', async () => {
  const dir = tempDataDir();
  const first = await startGateway(dir);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  try {
    const set = await first.admin.client.call('updateSettings', { body: { host: '[::1]', port } });
    assert.deepEqual([set.host, set.lan], ['::1', false]);
    for (const host of ['[nope]', 'localhost:4141', '[::1]:80'])
      assert.equal(
        (await refusal(first.admin.client.call('updateSettings', { body: { host } }))).code,
        'invalid_request',
        host,
      );
  } finally {
    await first.running.close();
  }
  const { serve } = await import('../../gateway/serve.js');
  const { MemorySecretStore } = await import('../../gateway/store/secrets.js');
  const second = await serve({ dataDir: dir, secrets: new MemorySecretStore(), toolsHome: { home: dir, env: {} } });
  try {
    assert.equal((await fetch(`http://[::1]:${port}/`)).status, 200);
  } finally {
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve binds to the port setting when no port is given', async () => {
  const dir = tempDataDir();
  const first = await startGateway(dir);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  await first.admin.client.call('updateSettings', { body: { port, retentionDays: 1 } });
  await first.running.close();
  const { serve } = await import('../../gateway/serve.js');
  const { MemorySecretStore } = await import('../../gateway/store/secrets.js');
  const second = await serve({ dataDir: dir, secrets: new MemorySecretStore(), toolsHome: { home: dir, env: {} } });
  try {
    assert.equal(second.url, `http://127.0.0.1:${port}`);
    assert.equal(second.host, '127.0.0.1');
  } finally {
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
