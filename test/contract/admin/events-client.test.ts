/**
 * The event-stream reader against a stand-in server: it yields the events of the table ADMIN_EVENTS
 * with their data checked, passes over an event it does not know, and refuses data that breaks the
 * table. (test/admin/events.test.ts follows the real gateway's stream with it.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  ADMIN_EVENTS,
  AdminClient,
  AdminError,
  adminEvents,
  bearer,
  CLIENT_ERRORS,
  handleAdminEvent,
  type AdminEvent,
  type AdminEventHandlers,
} from '../../../gateway/contract/admin/index.js';

let server: Server;
let baseUrl: string;
let stream = '';

before(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const STATUS = { version: '1.0.0', dataDir: '/data', url: 'http://127.0.0.1:4141', paused: true };
const sse = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

async function read(): Promise<AdminEvent[]> {
  const out: AdminEvent[] = [];
  for await (const e of adminEvents(new AdminClient({ baseUrl, headers: bearer('tga_test') }))) out.push(e);
  return out;
}

test('yields the events of the table and passes over one it does not know', async () => {
  stream = `retry: 2000\n\n${sse('status', { status: STATUS })}${sse('from-a-newer-gateway', { x: 1 })}: keep-alive\n\n${sse('status', { status: { ...STATUS, paused: false } })}`;
  const events = await read();
  assert.deepEqual(events, [
    { event: 'status', data: { status: STATUS } },
    { event: 'status', data: { status: { ...STATUS, paused: false } } },
  ]);
});

for (const [what, body] of [
  ['data that breaks the table', sse('status', { status: { ...STATUS, paused: 'yes' } })],
  ['data that is not JSON', sse('status', '{"status":')],
] as const) {
  test(`refuses ${what} as a bad reply`, async () => {
    stream = body;
    await assert.rejects(
      read(),
      (e: unknown) =>
        e instanceof AdminError &&
        e.code === CLIENT_ERRORS.badReply &&
        e.message.startsWith('The status event of GET /api/events'),
    );
  });
}

test('a client names a handler for every event of the table (checked by npm run typecheck)', () => {
  const names: string[] = [];
  const handlers: AdminEventHandlers<string> = {
    snapshot: () => 'snapshot',
    log: (d) => `log ${d.entry.id}`,
    wallet: () => 'wallet',
    key: (d) => `key ${d.key.name}`,
    line: (d) => `line ${d.line.name}${d.removed ? ' removed' : ''}`,
    status: (d) => `status ${d.status.paused}`,
    settings: (d) => `settings ${d.settings.port}`,
    session: (d) => `session ${d.session.id}`,
  };
  for (const name of Object.keys(ADMIN_EVENTS)) names.push(name);
  assert.deepEqual(names.sort(), Object.keys(handlers).sort());
  assert.equal(handleAdminEvent(handlers, { event: 'status', data: { status: STATUS } }), 'status true');
  // @ts-expect-error a handler table without `status` does not compile
  const _missing: AdminEventHandlers = { snapshot() {}, log() {}, wallet() {}, key() {}, line() {}, settings() {} };
  assert.equal(typeof _missing, 'object');
});
