/**
 * The live feed against a real gateway (live through its `/api/events` stream) and against a
 * stand-in that serves `/api/events` as agreed with the console (snapshot, key, wallet, line, log).
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { GatewayApi } from '../../main/gateway-api.js';
import { eventToAction, LiveFeed, spendSince } from '../../main/live-feed.js';
import { dayStartOf, initialState, reduce, type Action, type AppState } from '../../main/state.js';
import { startGateway, waitFor } from '../helpers/gateway.js';
import { startMockUpstream } from '../helpers/mock-upstream.js';
import { key, line, logEntry, wallet } from './fixtures.js';

function collector() {
  let state: AppState = initialState(Date.now());
  const actions: Action[] = [];
  return {
    dispatch: (a: Action) => {
      actions.push(a);
      state = reduce(state, a);
    },
    get state() {
      return state;
    },
    actions,
  };
}

test('against the real gateway and its event stream: goes live, and sees keys, wallet and spend change', async () => {
  const gw = await startGateway();
  const mock = await startMockUpstream();
  const feed = collector();
  let lost = 0;
  const live = new LiveFeed(new GatewayApi(gw.url, gw.running.adminToken), feed.dispatch, () => lost++, { pollMs: 50, retryMs: 50, now: Date.now });
  try {
    await gw.admin.topup(3);
    await gw.admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
    const secret = await gw.admin.key('laptop');
    await gw.openai(secret).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'before the feed' }] });
    live.start();
    await waitFor(() => feed.state.feed === 'live' && feed.state.keys.length === 1 && feed.state.spentTodayMicro > 0, 'first poll');
    const first = feed.state.spentTodayMicro;
    assert.equal(feed.state.wallet!.spentMicro, first, "today's spend is the sum of today's rows");
    assert.equal(feed.state.paused, null, 'this gateway cannot pause yet');
    await gw.openai(secret).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'while polling' }] });
    await waitFor(() => feed.state.spentTodayMicro > first, 'the new row counted (a log event)');
    const logs = await gw.admin.logs();
    assert.equal(feed.state.spentTodayMicro, logs.reduce((s, e) => s + e.costMicro, 0), 'each row counted once');
    await gw.admin.client.call('disableKey', { params: { name: 'laptop' } });
    await waitFor(() => feed.state.keys[0]?.state === 'disabled', 'the key change');
    assert.equal(lost, 0);
    await gw.running.close();
    await waitFor(() => lost === 1, 'the gateway reported lost');
    assert.equal(feed.state.feed, 'offline');
  } finally {
    live.stop();
    await mock.close();
    await gw.close();
  }
});

/** The real gateway seen through a proxy that hides `/api/events`, as an older gateway would answer. */
async function withoutEvents(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/events')) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(target + req.url, { method: req.method, headers, body })
        .then(async (up) => res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await up.arrayBuffer())))
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

test('against a gateway without an event stream: polls, and sees keys and spend change', async () => {
  const gw = await startGateway();
  const mock = await startMockUpstream();
  const proxy = await withoutEvents(gw.url);
  const feed = collector();
  const live = new LiveFeed(new GatewayApi(proxy.url, gw.running.adminToken), feed.dispatch, () => undefined, { pollMs: 50, retryMs: 50, now: Date.now });
  try {
    await gw.admin.topup(3);
    await gw.admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
    const secret = await gw.admin.key('laptop');
    live.start();
    await waitFor(() => feed.state.feed === 'polling' && feed.state.keys.length === 1, 'first poll');
    await gw.openai(secret).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'while polling' }] });
    await waitFor(() => feed.state.spentTodayMicro > 0, 'the new row counted by a poll');
    const logs = await gw.admin.logs();
    assert.equal(feed.state.spentTodayMicro, logs.reduce((s, e) => s + e.costMicro, 0), 'each row counted once');
    await gw.admin.client.call('disableKey', { params: { name: 'laptop' } });
    await waitFor(() => feed.state.keys[0]?.state === 'disabled', 'the key change');
    assert.equal(feed.state.feed, 'polling');
  } finally {
    live.stop();
    await proxy.close();
    await mock.close();
    await gw.close();
  }
});

test('spendSince pages back to local midnight', async () => {
  const day = dayStartOf(Date.now());
  const rows = Array.from({ length: 2500 }, (_, i) => logEntry(2500 - i, day + 3_600_000 - i, 2)).concat([logEntry(0, day - 1, 1000)]);
  const pages: (number | undefined)[] = [];
  const api = { logs: async (limit: number, before?: number) => (pages.push(before), rows.filter((r) => before === undefined || r.id < before).slice(0, limit)) } as unknown as GatewayApi;
  assert.deepEqual(await spendSince(api, day), { spentTodayMicro: 5000, dayStart: day, lastLogId: 2500 });
  assert.deepEqual(pages, [undefined, 1501, 501]);
});

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

test('against the agreed event stream: snapshot, then key, wallet, line and log events, each applied once', async () => {
  const day = dayStartOf(Date.now());
  const clients: ServerResponse[] = [];
  let logsServed = 0;
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== 'Bearer tga_test') return void res.writeHead(401).end('{}');
    if (req.url === '/api/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      clients.push(res);
      sse(res, 'snapshot', { status: { version: '1', dataDir: '/d', url: 'x', paused: false }, wallet: wallet(5_000_000), keys: [key('laptop')], lines: [line('openai')] });
      return;
    }
    if (req.url?.startsWith('/api/logs')) {
      logsServed++;
      // Row 2 lands while the feed sums the day: it arrives as an event too, and must count once.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ entries: [logEntry(2, Date.now(), 30), logEntry(1, Date.now(), 20)] }));
      return;
    }
    if (req.url === '/api/status') return void res.writeHead(200).end(JSON.stringify({ version: '1', dataDir: '/d', url: 'x' }));
    res.writeHead(404).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const feed = collector();
  const live = new LiveFeed(new GatewayApi(url, 'tga_test'), feed.dispatch, () => undefined, { pollMs: 50, retryMs: 50, now: Date.now });
  try {
    live.start();
    await waitFor(() => clients.length === 1 && feed.state.feed === 'live', 'snapshot');
    sse(clients[0]!, 'log', { entry: logEntry(2, Date.now(), 30) });
    await waitFor(() => feed.state.lastLogId === 2 && logsServed === 1, 'spend summed');
    assert.equal(feed.state.spentTodayMicro, 50);
    assert.equal(feed.state.paused, false);
    sse(clients[0]!, 'key', { key: key('laptop', { state: 'disabled' }) });
    sse(clients[0]!, 'wallet', { wallet: wallet(4_000_000) });
    sse(clients[0]!, 'line', { line: line('openai', 'open') });
    sse(clients[0]!, 'log', { entry: logEntry(3, Date.now(), 5) });
    sse(clients[0]!, 'mystery', { x: 1 });
    await waitFor(() => feed.state.lastLogId === 3, 'events applied');
    assert.equal(feed.state.keys[0]!.state, 'disabled');
    assert.equal(feed.state.wallet!.balanceMicro, 4_000_000);
    assert.equal(feed.state.lines[0]!.health.state, 'open');
    assert.equal(feed.state.spentTodayMicro, 55);
    assert.ok(feed.state.dayStart === day || feed.state.dayStart > day);
    // The stream drops but the gateway still answers: the feed reconnects and takes a fresh snapshot.
    clients[0]!.destroy();
    await waitFor(() => clients.length === 2, 'reconnected');
  } finally {
    live.stop();
    for (const c of clients) c.destroy();
    await new Promise((r) => server.close(r));
  }
});

test('unknown events and bad JSON are ignored', () => {
  assert.equal(eventToAction('mystery', '{}'), null);
  assert.equal(eventToAction('key', 'not json'), null);
  assert.deepEqual(eventToAction('wallet', JSON.stringify({ wallet: wallet(1) })), { type: 'wallet', wallet: wallet(1) });
});
