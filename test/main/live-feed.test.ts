/**
 * The live feed against a real gateway (through its `/api/events` stream) and against a stand-in
 * that serves `/api/events` as docs/admin-api.md describes it (snapshot, key, wallet, line, log, status).
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { AdminClient } from '../../gateway/contract/admin/index.js';
import { gatewayApi } from '../../main/gateway-api.js';
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
  const live = new LiveFeed(gatewayApi(gw.url, gw.running.adminToken), feed.dispatch, () => lost++, {
    retryMs: 50,
    toolsMs: 60_000,
    now: Date.now,
  });
  try {
    await gw.admin.topup(3);
    await gw.admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
    const secret = await gw.admin.key('laptop');
    await gw
      .openai(secret)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'before the feed' }] });
    live.start();
    await waitFor(
      () => feed.state.feed === 'live' && feed.state.keys.length === 1 && feed.state.spentTodayMicro > 0,
      'the snapshot and the day summed',
    );
    const first = feed.state.spentTodayMicro;
    assert.equal(feed.state.wallet!.spentMicro, first, "today's spend is the sum of today's rows");
    assert.equal(feed.state.paused, false);
    await gw
      .openai(secret)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'while live' }] });
    await waitFor(() => feed.state.spentTodayMicro > first, 'the new row counted (a log event)');
    const logs = await gw.admin.logs();
    assert.equal(
      feed.state.spentTodayMicro,
      logs.reduce((s, e) => s + e.costMicro, 0),
      'each row counted once',
    );
    await gw.admin.client.call('disableKey', { params: { name: 'laptop' } });
    await waitFor(() => feed.state.keys[0]?.state === 'disabled', 'the key change');
    assert.deepEqual(
      feed.state.tools?.map((t) => [t.tool, t.connected]),
      [
        ['claude-code', false],
        ['codex', false],
        ['gemini-cli', false],
        ['opencode', false],
      ],
    );
    // Connecting a tool creates its key: the feed looks at the tools again at once.
    await gw.admin.client.call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-4o-mini' } });
    await waitFor(() => feed.state.tools?.find((t) => t.tool === 'codex')?.connected === true, 'codex connected');
    const codex = feed.state.tools!.find((t) => t.tool === 'codex')!;
    assert.deepEqual([codex.keyName, codex.matches], ['codex', true]);
    await gw.admin.client.call('pauseGateway');
    await waitFor(() => feed.state.paused === true, 'the pause (a status event)');
    await gw.admin.client.call('resumeGateway');
    await waitFor(() => feed.state.paused === false, 'the resume');
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

test('spendSince pages back to local midnight', async () => {
  const day = dayStartOf(Date.now());
  const rows = Array.from({ length: 2500 }, (_, i) => logEntry(2500 - i, day + 3_600_000 - i, 2)).concat([
    logEntry(0, day - 1, 1000),
  ]);
  const pages: (number | undefined)[] = [];
  const api = {
    call: async (route: string, { query }: { query: { limit: number; before?: number } }) => {
      assert.equal(route, 'listLogs');
      pages.push(query.before);
      return { entries: rows.filter((r) => query.before === undefined || r.id < query.before).slice(0, query.limit) };
    },
  } as unknown as AdminClient;
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
      sse(res, 'snapshot', {
        status: { version: '1', dataDir: '/d', url: 'x', paused: false },
        wallet: wallet(5_000_000),
        keys: [key('laptop')],
        lines: [line('openai')],
      });
      return;
    }
    if (req.url?.startsWith('/api/logs')) {
      logsServed++;
      // Row 2 lands while the feed sums the day: it arrives as an event too, and must count once.
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ entries: [logEntry(2, Date.now(), 30), logEntry(1, Date.now(), 20)] }));
      return;
    }
    if (req.url === '/api/status')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ version: '1', dataDir: '/d', url: 'x', paused: false }));
    res.writeHead(404).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const feed = collector();
  const live = new LiveFeed(gatewayApi(url, 'tga_test'), feed.dispatch, () => undefined, {
    retryMs: 50,
    toolsMs: 60_000,
    now: Date.now,
  });
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
    sse(clients[0]!, 'status', { status: { version: '1', dataDir: '/d', url: 'x', paused: true } });
    sse(clients[0]!, 'mystery', { x: 1 });
    await waitFor(() => feed.state.lastLogId === 3, 'events applied');
    assert.equal(feed.state.keys[0]!.state, 'disabled');
    assert.equal(feed.state.wallet!.balanceMicro, 4_000_000);
    assert.equal(feed.state.lines[0]!.health.state, 'open');
    assert.equal(feed.state.spentTodayMicro, 55);
    await waitFor(() => feed.state.paused === true, 'the status event');
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

test('each event is a state action; a status event is the pause state', () => {
  assert.deepEqual(eventToAction({ event: 'wallet', data: { wallet: wallet(1) } }), {
    type: 'wallet',
    wallet: wallet(1),
  });
  assert.deepEqual(
    eventToAction({ event: 'status', data: { status: { version: '1', dataDir: '/d', url: 'x', paused: true } } }),
    { type: 'paused', paused: true },
  );
});
