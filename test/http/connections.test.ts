/**
 * Connections (gateway/http/connections.ts): idle sockets cannot lock anyone out, the oldest idle
 * ones make room, the admin side keeps a lane while model traffic is at its limit, and a burst of
 * 500 honest requests is served.
 */
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Agent } from 'undici';
import { CONNECTION_CEILING, manageConnections } from '../../gateway/http/connections.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

async function open(port: number): Promise<Socket> {
  const s = connect(port, '127.0.0.1');
  await new Promise<void>((r, j) => s.once('connect', r).once('error', j));
  return s;
}

function closed(s: Socket): Promise<void> {
  return s.destroyed ? Promise.resolve() : new Promise((r) => s.once('close', () => r()));
}

const settle = (ms = 50) => new Promise((r) => setTimeout(r, ms));

describe('the ceiling, on a bare server', () => {
  let server: Server;
  let port: number;
  let stats: ReturnType<typeof manageConnections>;
  const held: (() => void)[] = [];

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/hold') return void held.push(() => res.end('done'));
      res.end('ok');
    });
    stats = manageConnections(server, 4);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const hold = async (): Promise<Socket> => {
    const s = await open(port);
    s.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
    await settle(20);
    return s;
  };

  test('never-used sockets go first, oldest first; busy ones are never reclaimed', async () => {
    const busy = await hold();
    const keptAlive = await open(port);
    keptAlive.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => keptAlive.once('data', r));
    const silent1 = await open(port);
    await settle();
    const silent2 = await open(port);
    await settle();
    assert.equal(stats().open, 4);
    const fifth = await open(port);
    await closed(silent1);
    assert.equal(silent2.destroyed, false, 'the older never-used socket went first');
    const sixth = await open(port);
    await closed(silent2);
    assert.equal(keptAlive.destroyed, false, 'a never-used socket goes before a kept-alive one');
    assert.equal(busy.destroyed, false, 'a busy socket is never reclaimed');
    assert.equal(stats().reclaimed, 2);
    for (const s of [fifth, sixth, keptAlive, busy]) s.destroy();
    for (const done of held.splice(0)) done();
  });

  test('with no never-used socket, an idle kept-alive one makes room; when all are busy, the new one is closed', async () => {
    await settle();
    const busy = [await hold(), await hold(), await hold()];
    const keptAlive = await open(port);
    keptAlive.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => keptAlive.once('data', r));
    await settle();
    const before = stats().reclaimed;
    busy.push(await hold());
    await closed(keptAlive);
    assert.equal(stats().reclaimed, before + 1);
    assert.ok(busy.every((s) => !s.destroyed));
    const extra = await open(port);
    await closed(extra);
    assert.equal(stats().refused, 1);
    for (const done of held.splice(0)) done();
    for (const s of busy) s.destroy();
  });
});

describe('the gateway', () => {
  let mock: MockUpstream;
  let gw: TestGateway;
  let key: string;
  /** A gateway whose model lane holds 20, to fill it. */
  let laneGw: TestGateway;
  let laneKey: string;

  before(async () => {
    mock = await startMockUpstream();
    gw = await startGateway();
    laneGw = await startGateway(undefined, undefined, { serve: { modelLaneLimit: 20 } });
    await laneGw.admin.topup(50);
    await laneGw.admin.line({
      name: 'mock',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, 'words=3'),
      models: ['gpt-4o-mini'],
    });
    await laneGw.admin.line({
      name: 'slow',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, 'delay=3000'),
      models: ['gpt-4.1-mini'],
    });
    laneKey = await laneGw.admin.key('lane');
    await gw.admin.topup(50);
    await gw.admin.line({
      name: 'mock',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, 'words=3'),
      models: ['gpt-4o-mini'],
    });
    key = await gw.admin.key('burst');
  });
  after(async () => {
    await gw.close();
    await laneGw.close();
    await mock.close();
  });

  const chat = (model: string, dispatcher?: Agent, on = gw, k = key) =>
    fetch(`${on.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      ...(dispatcher ? { dispatcher } : {}),
    } as RequestInit);

  test('more idle, keyless sockets than the ceiling lock out neither the model API, the admin API nor the console', async () => {
    const port = Number(new URL(gw.url).port);
    const idle: Socket[] = [];
    try {
      for (let i = 0; i < CONNECTION_CEILING + 50; i++) idle.push(await open(port));
      await settle(100);
      const started = Date.now();
      const model = await chat('gpt-4o-mini');
      assert.equal(model.status, 200, await model.text());
      assert.equal((await gw.admin.wallet()).heldMicro, 0, 'the admin API answers');
      const page = await fetch(`${gw.url}/`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200, 'the console answers');
      assert.ok(Date.now() - started < 5000, `served in ${Date.now() - started} ms`);
      const stats = gw.running.app.connectionStats();
      assert.ok(stats.open <= CONNECTION_CEILING, `${stats.open} open`);
      assert.ok(stats.reclaimed >= 50, `${stats.reclaimed} reclaimed`);
    } finally {
      for (const s of idle) s.destroy();
    }
  });

  test('a burst of 500 honest requests is served', async () => {
    // Its own pool, one connection per request, as 500 separate clients would open.
    const agent = new Agent({ connections: 500 });
    try {
      const before = gw.running.app.connectionStats();
      const results = await Promise.all(
        Array.from({ length: 500 }, async () => {
          try {
            const r = await chat('gpt-4o-mini', agent);
            await r.text();
            return r.status;
          } catch (err) {
            return String((err as { cause?: { code?: string } }).cause?.code ?? err);
          }
        }),
      );
      assert.deepEqual(
        results.filter((s) => s !== 200),
        [],
        'every one answered 200: none reset, refused or turned away',
      );
      assert.equal(gw.running.app.connectionStats().refused, before.refused);
      assert.equal((await gw.admin.wallet()).heldMicro, 0);
    } finally {
      await agent.close();
    }
  });

  test('model traffic at its limit gets 503 in its own shape; the admin API and the console keep answering', async () => {
    const slow = Array.from({ length: 20 }, () =>
      chat('gpt-4.1-mini', undefined, laneGw, laneKey).then((r) => r.status),
    );
    await settle(500);
    const over = await chat('gpt-4o-mini', undefined, laneGw, laneKey);
    assert.equal(over.status, 503);
    const body = (await over.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'gateway_busy');
    assert.equal(over.headers.get('retry-after'), '1');
    assert.equal((await laneGw.admin.client.call('getStatus')).paused, false);
    const page = await new Promise<number>((resolve, reject) =>
      request(`${laneGw.url}/`, { headers: { accept: 'text/html' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end(),
    );
    assert.equal(page, 200);
    assert.deepEqual(await Promise.all(slow), Array(20).fill(200));
    assert.equal(
      (await chat('gpt-4o-mini', undefined, laneGw, laneKey)).status,
      200,
      'places come back when answers end',
    );
    assert.equal((await laneGw.admin.wallet()).heldMicro, 0);
  });
});
