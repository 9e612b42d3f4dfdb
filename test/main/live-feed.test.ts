/**
 * The live feed against a real gateway (through its `/api/events` stream) and against a stand-in
 * that serves `/api/events` as docs/admin-api.md describes it (snapshot, key, wallet, line, log,
 * status, settings); today's spend is the gateway's own sum (`/api/stats`), asked again after log rows.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { AdminClient, StatsQuery } from '../../gateway/contract/admin/index.js';
import { gatewayApi } from '../../main/gateway-api.js';
import { eventToAction, LiveFeed, spendToday } from '../../main/live-feed.js';
import { dayStartOf, initialState, lowBalanceOf, reduce, type Action, type AppState } from '../../main/state.js';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream } from '../helpers/mock-upstream.js';
import { gatewaySettings, key, line, logEntry, wallet } from './fixtures.js';

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

/** A feed on a test gateway that reconnects and sums the spend within 50 ms. */
function quickFeed(gw: TestGateway, dispatch: (a: Action) => void, onLost: () => void): LiveFeed {
  return new LiveFeed(gatewayApi(gw.url, gw.running.adminToken), dispatch, onLost, {
    retryMs: 50,
    toolsMs: 60_000,
    spendMs: 50,
    now: Date.now,
  });
}

test('against the real gateway and its event stream: goes live, and sees keys, wallet and spend change', async () => {
  const gw = await startGateway();
  const mock = await startMockUpstream();
  const feed = collector();
  let lost = 0;
  const live = quickFeed(gw, feed.dispatch, () => lost++);
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
    // The threshold is the gateway's setting: a change made in the console reaches the tray.
    assert.equal(lowBalanceOf(feed.state), 1_000_000);
    await gw.admin.client.call('updateSettings', { body: { lowBalanceMicro: 4_000_000 } });
    await waitFor(() => lowBalanceOf(feed.state) === 4_000_000, 'the settings event');
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

test('on connect, the sessions already running are loaded from the gateway, paused ones marked', async () => {
  const gw = await startGateway();
  const mock = await startMockUpstream();
  const feed = collector();
  const live = quickFeed(gw, feed.dispatch, () => undefined);
  try {
    await gw.admin.topup(3);
    await gw.admin.line({ name: 'mock', baseUrl: `${mock.url}/v1`, models: ['gpt-4o-mini'] });
    const ask = (secret: string, session: string) =>
      gw
        .openai(secret)
        .chat.completions.create(
          { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
          { headers: { 'x-tollgate-session': session } },
        );
    // Both sessions ran before the tray connected: no event will tell it of them.
    await ask(await gw.admin.key('laptop'), 'running');
    await ask(await gw.admin.key('capped', { sessionCapMicro: 1 }), 'over-cap');
    live.start();
    await waitFor(() => feed.state.sessions.length === 2, 'the sessions listed on connect');
    assert.deepEqual(
      feed.state.sessions.map((s) => [s.id, s.state, s.keyName]),
      [
        ['over-cap', 'paused', 'capped'],
        ['running', 'active', 'laptop'],
      ],
    );
    assert.ok(feed.actions.some((a) => a.type === 'sessions'));
    // Later requests arrive as events and join the list.
    await ask(await gw.admin.key('later'), 'after-connect');
    await waitFor(() => feed.state.sessions.some((s) => s.id === 'after-connect'), 'the session event');
  } finally {
    live.stop();
    await mock.close();
    await gw.close();
  }
});

test("spendToday asks /api/stats for the local day and sums every key's spend", async () => {
  const now = Date.now();
  const asked: StatsQuery[] = [];
  const api = {
    call: async (route: string, { query }: { query: StatsQuery }) => {
      assert.equal(route, 'getStats');
      asked.push(query);
      const row = { requests: 1, errors: 0, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
      return {
        rows: [
          { ...row, start: query.since, group: 'laptop', costMicro: 30 },
          { ...row, start: query.since, group: 'ci', costMicro: 12 },
          { ...row, start: query.since, group: null, costMicro: 0 },
        ],
      };
    },
  } as unknown as AdminClient;
  const day = dayStartOf(now);
  assert.deepEqual(await spendToday(api, now), { spentTodayMicro: 42, dayStart: day });
  const q = asked[0]!;
  assert.deepEqual(
    [q.since, q.until, q.bucket, q.tz],
    [day, dayStartOf(day + 36 * 3_600_000), 'day', -new Date(day).getTimezoneOffset()],
  );
  assert.ok(q.until - q.since >= 23 * 3_600_000 && q.until - q.since <= 25 * 3_600_000, 'one local day');
});

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

test('against the agreed event stream: snapshot, then key, wallet, line and log events, each applied once', async () => {
  const day = dayStartOf(Date.now());
  const clients: ServerResponse[] = [];
  let statsServed = 0;
  let spend = 50;
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
        settings: gatewaySettings({ lowBalanceMicro: 2_000_000 }),
      });
      return;
    }
    if (req.url?.startsWith('/api/stats')) {
      statsServed++;
      const row = { requests: 1, errors: 0, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ rows: [{ ...row, start: dayStartOf(Date.now()), group: 'laptop', costMicro: spend }] }));
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
    spendMs: 100,
    now: Date.now,
  });
  try {
    live.start();
    await waitFor(() => clients.length === 1 && feed.state.feed === 'live', 'snapshot');
    await waitFor(() => statsServed === 1 && feed.state.spentTodayMicro === 50, 'spend asked at the snapshot');
    assert.equal(feed.state.paused, false);
    assert.equal(lowBalanceOf(feed.state), 2_000_000, "the snapshot's settings");
    // A burst of rows makes one question more, not one per row.
    spend = 85;
    for (let id = 2; id <= 6; id++) sse(clients[0]!, 'log', { entry: logEntry(id, Date.now(), 7) });
    await waitFor(() => feed.state.spentTodayMicro === 85, 'spend asked again after the rows');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(statsServed <= 3, `asked ${statsServed} times for a burst of five rows`);
    sse(clients[0]!, 'key', { key: key('laptop', { state: 'disabled' }) });
    sse(clients[0]!, 'wallet', { wallet: wallet(4_000_000) });
    sse(clients[0]!, 'line', { line: line('openai', 'open') });
    sse(clients[0]!, 'settings', { settings: gatewaySettings({ lowBalanceMicro: null }) });
    sse(clients[0]!, 'status', { status: { version: '1', dataDir: '/d', url: 'x', paused: true } });
    sse(clients[0]!, 'mystery', { x: 1 });
    await waitFor(() => feed.state.settings?.lowBalanceMicro === null, 'events applied');
    assert.equal(feed.state.keys[0]!.state, 'disabled');
    assert.equal(feed.state.wallet!.balanceMicro, 4_000_000);
    assert.equal(feed.state.lines[0]!.health.state, 'open');
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

test('each event is a state action; a status event is the pause state; a log row is none (the spend is asked)', () => {
  assert.equal(eventToAction({ event: 'log', data: { entry: logEntry(1, 0, 5) } }), null);
  assert.deepEqual(eventToAction({ event: 'wallet', data: { wallet: wallet(1) } }), {
    type: 'wallet',
    wallet: wallet(1),
  });
  assert.deepEqual(
    eventToAction({ event: 'status', data: { status: { version: '1', dataDir: '/d', url: 'x', paused: true } } }),
    { type: 'paused', paused: true },
  );
});
