/** GET /api/events: the snapshot, then log, wallet, key, line and status events as things change, from any writer. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { AdminClient, type AdminEvent, adminEvents, bearer } from '../../gateway/contract/admin/index.js';
import { MAX_UNREAD_BYTES } from '../../gateway/admin/events.js';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;

before(async () => {
  gw = await startGateway();
  mock = await startMockUpstream();
});

after(async () => {
  await gw.close();
  await mock.close();
});

/** Collects events in the background; `next(pred)` waits for the first one matching. */
function follow(client: AdminClient, signal: AbortSignal) {
  const seen: AdminEvent[] = [];
  const waiters: { pred: (e: AdminEvent) => boolean; resolve: (e: AdminEvent) => void }[] = [];
  const done = (async () => {
    for await (const e of adminEvents(client, signal)) {
      seen.push(e);
      for (const w of [...waiters]) {
        if (!w.pred(e)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  })().catch((err: unknown) => {
    if (!signal.aborted) throw err;
  });
  return {
    seen,
    done,
    next<E extends AdminEvent['event']>(
      event: E,
      pred: (d: Extract<AdminEvent, { event: E }>['data']) => boolean = () => true,
    ): Promise<Extract<AdminEvent, { event: E }>['data']> {
      const match = (e: AdminEvent): boolean => e.event === event && pred(e.data as never);
      const found = seen.find(match);
      if (found) return Promise.resolve(found.data as never);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no ${event} event within 5 s; saw ${seen.map((e) => e.event).join(', ')}`)),
          5000,
        );
        waiters.push({ pred: match, resolve: (e) => (clearTimeout(t), resolve(e.data as never)) });
      });
    },
  };
}

test('the snapshot first, then every change as its own event', async () => {
  const ac = new AbortController();
  const ev = follow(gw.admin.client, ac.signal);
  const snap = await ev.next('snapshot');
  assert.equal(ev.seen[0]!.event, 'snapshot');
  assert.deepEqual(snap.wallet.balanceMicro, 0);
  assert.deepEqual([snap.keys, snap.lines], [[], []]);
  assert.equal(snap.status.url, gw.url);

  await gw.admin.topup(5);
  assert.equal((await ev.next('wallet', (d) => d.wallet.balanceMicro === 5_000_000)).wallet.topupsMicro, 5_000_000);

  await gw.admin.line({
    name: 'local',
    baseUrl: `${mock.url}/v1`,
    models: ['gpt-4o'],
    modelMap: { 'gpt-4o': 'mock-small' },
  });
  assert.equal((await ev.next('line', (d) => d.line.name === 'local')).line.health.state, 'closed');

  const secret = await gw.admin.key('laptop');
  await ev.next('key', (d) => d.key.name === 'laptop' && d.key.state === 'enabled');
  await gw.openai(secret).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  const { entry } = await ev.next('log', (d) => d.entry.keyName === 'laptop');
  assert.equal(entry.status, 200);
  assert.ok(entry.costMicro > 0, 'the logged request has a cost');
  await ev.next('key', (d) => d.key.name === 'laptop' && d.key.usedMicro === entry.costMicro);
  await ev.next('wallet', (d) => d.wallet.spentMicro === entry.costMicro);

  await gw.admin.client.call('disableKey', { params: { name: 'laptop' } });
  await ev.next('key', (d) => d.key.state === 'disabled');
  await gw.admin.client.call('deleteKey', { params: { name: 'laptop' } });
  await ev.next('key', (d) => d.key.state === 'deleted');
  await gw.admin.client.call('removeLine', { params: { name: 'local' } });
  const removed = await ev.next('line', (d) => d.removed === true);
  assert.equal(removed.line.name, 'local');
  ac.abort();
  await ev.done;
});

test('pausing and resuming are status events; the snapshot says whether the gateway is paused', async () => {
  const ac = new AbortController();
  const ev = follow(gw.admin.client, ac.signal);
  assert.equal((await ev.next('snapshot')).status.paused, false);
  await gw.admin.client.call('pauseGateway');
  await gw.admin.client.call('pauseGateway');
  await gw.admin.client.call('resumeGateway');
  await gw.admin.client.call('pauseGateway');
  await ev.next('status', (d) => d.status.paused);
  await waitFor(() => ev.seen.filter((e) => e.event === 'status').length === 3, 'an event for each change');
  // A pause and a resume within the same half second are both told, in order, at once.
  assert.deepEqual(
    ev.seen.filter((e) => e.event === 'status').map((e) => (e.data as { status: { paused: boolean } }).status.paused),
    [true, false, true],
  );
  await gw.admin.client.call('resumeGateway');
  await ev.next('status', (d) => !d.status.paused && ev.seen.filter((e) => e.event === 'status').length === 4);
  ac.abort();
  await ev.done;

  await gw.admin.client.call('pauseGateway');
  const late = follow(gw.admin.client, AbortSignal.timeout(5000));
  assert.equal((await late.next('snapshot')).status.paused, true);
  await gw.admin.client.call('resumeGateway');
});

test('the stream is behind the admin guard: no token, no events', async () => {
  const anonymous = new AdminClient({ baseUrl: gw.url });
  await assert.rejects(
    adminEvents(anonymous).next(),
    (err: { status: number; code: string }) => err.status === 401 && err.code === 'admin_token_required',
  );
});

test('a gateway closing with a listener attached closes the stream and does not hang', async () => {
  const other = await startGateway();
  const ev = follow(
    new AdminClient({ baseUrl: other.url, headers: bearer(other.running.adminToken) }),
    new AbortController().signal,
  );
  await ev.next('snapshot');
  await other.close();
  await ev.done;
});

test('a subscriber that never reads is cut off once it leaves more than the bound unread; one that reads keeps up', async () => {
  // A raw socket that sends the request, then never reads what comes back.
  const url = new URL(gw.url);
  const stalled = connect({ host: url.hostname, port: Number(url.port) });
  await new Promise((resolve) => stalled.once('connect', resolve));
  stalled.pause();
  let closed = false;
  stalled.on('close', () => (closed = true));
  stalled.on('error', () => {});
  stalled.write(
    `GET /api/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${gw.running.adminToken}\r\n\r\n`,
  );
  const abort = new AbortController();
  const reader = follow(gw.admin.client, abort.signal);
  await reader.next('snapshot');
  // Status events (one per pause change) until far more than the bound plus any socket buffers is sent.
  const pause = gw.running.gateway.pause;
  let sent = 0;
  const size = JSON.stringify({ status: await gw.admin.client.call('getStatus') }).length;
  for (let i = 0; sent < MAX_UNREAD_BYTES * 8; i++) {
    pause.set(!pause.paused);
    sent += size;
    if (i % 200 === 0) await turn();
  }
  pause.set(false);
  stalled.resume();
  await waitFor(() => closed, 'the stalled subscriber to be cut off', 10_000);
  // The reading subscriber saw the last change.
  await reader.next('status', (d) => d.status.paused === false);
  abort.abort();
  await reader.done;
});
