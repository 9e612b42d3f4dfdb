import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { startSse, write } from '../../gateway/relay/respond.js';

/** Counts the writes a socket hands to the operating system (one per `_write` or `_writev`). */
function countWrites(socket: Socket): { count: number } {
  const seen = { count: 0 };
  const s = socket as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
  for (const name of ['_write', '_writev'] as const) {
    const original = s[name];
    s[name] = function (this: unknown, ...a: unknown[]) {
      seen.count++;
      return original.apply(this, a);
    };
  }
  return seen;
}

/** A server whose one request runs `handle`, and the raw text a client read from it. */
async function serve(handle: (res: http.ServerResponse) => Promise<void>): Promise<string> {
  const server = http.createServer((_req, res) => void handle(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    return await res.text();
  } finally {
    server.close();
  }
}

test("a stream's headers and the events written in the same turn leave in one socket write, and the bytes are unchanged", async () => {
  let opening = 0;
  let later = 0;
  const text = await serve(async (res) => {
    const writes = countWrites(res.socket!);
    startSse(res);
    for (const e of ['event: a\ndata: 1\n\n', 'event: b\ndata: 2\n\n', 'event: c\ndata: 3\n\n']) write(res, e);
    await nextTurn();
    opening = writes.count;
    write(res, 'event: d\ndata: 4\n\n');
    await nextTurn();
    later = writes.count - opening;
    res.end();
  });
  assert.equal(opening, 1, 'headers and the first three events: one write');
  assert.equal(later, 1, "a later turn's event goes out in its own turn");
  assert.equal(text, 'event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: c\ndata: 3\n\nevent: d\ndata: 4\n\n');
});

test('a write the socket cannot take at once still resolves once it drains', async () => {
  const big = 'x'.repeat(256 * 1024);
  const text = await serve(async (res) => {
    startSse(res);
    const pending = write(res, `data: ${big}\n\n`);
    if (pending) await pending;
    write(res, 'data: end\n\n');
    res.end();
  });
  assert.equal(text, `data: ${big}\n\ndata: end\n\n`);
});
