/**
 * The pooled upstream client against a real HTTP server on 127.0.0.1: each timeout ends the request
 * it is meant for (and only that one), and nothing an upstream sends is read without a bound.
 * Timeouts are set small and the tests wait for the error, never for a time.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { GatewayError } from '../../gateway/core/errors.js';
import {
  attemptController,
  type CallSignal,
  DEFAULT_TIMEOUTS,
  MAX_ANSWER_BYTES,
  UpstreamClient,
  type Timeouts,
  type UpstreamResponse,
} from '../../gateway/upstream/client.js';
import { readUpstreamError, TotalTimeoutError, UpstreamTimeoutError } from '../../gateway/upstream/errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const handlers = new Map<string, Handler>();
let server: Server;
let origin: string;
const client = new UpstreamClient();
/** Bytes each path managed to write before the client went away. */
const written = new Map<string, number>();

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handlers.get(req.url ?? '')?.(req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function send(
  path: string,
  stream: boolean,
  timeouts: Partial<Timeouts>,
  signal: CallSignal = new AbortController().signal,
): Promise<UpstreamResponse> {
  return client.send({
    lineId: 'l',
    url: new URL(origin + path),
    headers: {},
    body: '{}',
    stream,
    timeouts: { ...DEFAULT_TIMEOUTS, ...timeouts },
    signal,
  });
}

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => assert.fail('it succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof GatewayError, String(err));
  return err;
}

async function drain(res: UpstreamResponse): Promise<string> {
  let text = '';
  for await (const chunk of res.body) text += Buffer.from(chunk).toString();
  return text;
}

/** Writes chunks of `size` bytes until the client goes away or `total` bytes are out. */
function flood(path: string, status: number, total: number, size = 64 * 1024): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(size, 'x');
    let sent = 0;
    const more = (): void => {
      while (sent < total && !res.destroyed) {
        sent += size;
        written.set(path, sent);
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      if (sent >= total) res.end();
    };
    res.on('close', () => written.set(path, sent));
    more();
  };
}

describe('first-byte timeouts', () => {
  test('a stream whose headers come but whose first event never does times out on the first-byte timeout', async () => {
    handlers.set('/mute', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    // 300 ms, not less: the headers must arrive before the timeout does, also on a loaded machine (at 50 ms
    // they once came too late in the full suite, and the call failed before its stream began).
    const res = await send('/mute', true, { firstByteMs: 300 });
    const err = await failure(drain(res));
    assert.equal(err.code, 'upstream_timeout');
    assert.match(err.message, /sent no event of its stream within 300 ms/);
    assert.match(err.message, /--first-byte-timeout/);
  });

  test('a non-streaming request waits for its own, longer timeout, not the stream one', async () => {
    handlers.set('/slow-answer', (_req, res) => {
      setTimeout(() => res.end('{"ok":true}'), 100);
    });
    const res = await send('/slow-answer', false, { firstByteMs: 10, nonStreamingFirstByteMs: 60_000 });
    assert.equal(await res.body.text(), '{"ok":true}');
    handlers.set('/no-answer', () => undefined);
    const err = await failure(send('/no-answer', false, { firstByteMs: 60_000, nonStreamingFirstByteMs: 50 }));
    assert.equal(err.code, 'upstream_timeout');
    assert.match(err.message, /sent no answer within 50 ms/);
    assert.match(err.message, /--non-streaming-first-byte-timeout/);
  });
});

describe('idle timeout', () => {
  test('silence in the middle of an answer ends it', async () => {
    handlers.set('/pause', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const res = await send('/pause', true, { idleMs: 50 });
    const err = await failure(drain(res));
    assert.equal(err.code, 'upstream_idle_timeout');
  });

  test('a slow reader is not the upstream being silent', async () => {
    handlers.set('/quick', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: 2\n\n'), 10);
    });
    // The timeouts in this file that must not fire are hundreds of milliseconds, not tens: on a loaded machine
    // a late event loop runs a due timer before it reads the socket that would have restarted it.
    const res = await send('/quick', true, { idleMs: 200 });
    let text = '';
    for await (const chunk of res.body) {
      text += Buffer.from(chunk).toString();
      // Longer than the idle timeout: the client we write to is slow, the upstream is not.
      await sleep(400);
    }
    assert.equal(text, 'data: 1\n\ndata: 2\n\n');
  });

  test('a caller that stops reading early ends the upstream request, and no timer of it fires later', async () => {
    let closed: Promise<void> | undefined;
    handlers.set('/endless', (_req, res) => {
      closed = new Promise((r) => res.on('close', r));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const tick = setInterval(() => res.write('data: x\n\n'), 2);
      res.on('close', () => clearInterval(tick));
    });
    const res = await send('/endless', true, { idleMs: 300 });
    let chunks = 0;
    for await (const chunk of res.body) {
      void chunk;
      if (++chunks === 3) break;
    }
    await closed;
    assert.equal(chunks, 3);
  });

  test("the caller's abort still ends the request, with the caller's reason", async () => {
    handlers.set('/forever', () => undefined);
    const ac = new AbortController();
    const pending = send('/forever', false, {}, ac.signal);
    ac.abort(new TotalTimeoutError(5));
    assert.equal((await failure(pending)).code, 'upstream_timeout');
  });
});

describe("an attempt's controller, which the timers abort themselves", () => {
  test('a first-byte timeout aborts the attempt with the timeout as its reason, and is reported as before', async () => {
    handlers.set('/mute-attempt', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    const attempt = attemptController();
    // 300 ms for the same reason as the first-byte test above: the headers must come before the timeout.
    const res = await send('/mute-attempt', true, { firstByteMs: 300 }, attempt.signal);
    const err = await failure(drain(res));
    assert.equal(err.code, 'upstream_timeout');
    assert.match(err.message, /sent no event of its stream within 300 ms/);
    assert.ok(attempt.signal.aborted);
    assert.ok(attempt.signal.reason instanceof UpstreamTimeoutError);
  });

  test('an idle timeout too, and the total timeout keeps its own reason', async () => {
    handlers.set('/pause-attempt', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const idle = attemptController();
    const res = await send('/pause-attempt', true, { idleMs: 50 }, idle.signal);
    assert.equal((await failure(drain(res))).code, 'upstream_idle_timeout');
    handlers.set('/forever-attempt', () => undefined);
    const total = attemptController();
    const pending = send('/forever-attempt', false, {}, total.signal);
    total.abort(new TotalTimeoutError(5));
    const err = await failure(pending);
    assert.equal(err.code, 'upstream_timeout');
    assert.match(err.message, /^Upstream timeout: /);
  });

  test('an attempt aborts like an AbortController: its listeners once, in order, a throwing one reported as uncaught', async () => {
    const attempt = attemptController();
    const calls: string[] = [];
    const removed = (): void => void calls.push('removed');
    attempt.signal.addEventListener('abort', () => calls.push('first'));
    attempt.signal.addEventListener('abort', removed);
    attempt.signal.addEventListener('abort', () => {
      throw new Error('a listener failed');
    });
    attempt.signal.addEventListener('abort', () => calls.push('last'));
    attempt.signal.removeEventListener('abort', removed);
    // The throw is deferred to its own tick, as an EventTarget's would be: caught here, not by the test runner.
    const deferred: (() => void)[] = [];
    const nextTick = process.nextTick;
    process.nextTick = ((fn: () => void) => void deferred.push(fn)) as typeof process.nextTick;
    const reason = new TotalTimeoutError(5);
    try {
      attempt.abort(reason);
      attempt.abort(new Error('a second abort changes nothing'));
    } finally {
      process.nextTick = nextTick;
    }
    assert.deepEqual(calls, ['first', 'last']);
    assert.equal(attempt.signal.reason, reason);
    assert.equal(deferred.length, 1);
    assert.throws(deferred[0]!, /a listener failed/);
    attempt.signal.addEventListener('abort', () => calls.push('too late'));
    assert.deepEqual(calls, ['first', 'last']);
    const plain = attemptController();
    plain.abort();
    assert.equal((plain.signal.reason as DOMException).name, 'AbortError');
  });

  test('a call that ended leaves no timer behind: a second call on the same attempt is not aborted by the first', async () => {
    handlers.set('/quick-answer', (_req, res) => res.end('{"ok":true}'));
    const attempt = attemptController();
    const first = await send('/quick-answer', false, { nonStreamingFirstByteMs: 300, idleMs: 300 }, attempt.signal);
    assert.equal(await first.body.text(), '{"ok":true}');
    await sleep(400);
    assert.equal(attempt.signal.aborted, false);
    const second = await send('/quick-answer', false, {}, attempt.signal);
    assert.equal(await second.body.text(), '{"ok":true}');
  });
});

describe('a whole answer read as text', () => {
  test('comes back whole across chunks, with the idle timer started again by each chunk', async () => {
    handlers.set('/chunks', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let i = 0;
      const next = (): void => {
        if (i === 4) return void res.end('"end"]');
        res.write(`"${i++}",`);
        setTimeout(next, 150);
      };
      res.write('[');
      next();
    });
    // Four gaps of 150 ms: longer in all than the idle timeout, each well inside it.
    const res = await send('/chunks', false, { idleMs: 300 });
    assert.equal(await res.body.text(), '["0","1","2","3","end"]');
  });

  test('silence in the middle of it ends it with the idle timeout', async () => {
    handlers.set('/half', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[');
    });
    const res = await send('/half', false, { idleMs: 50 });
    assert.equal((await failure(res.body.text())).code, 'upstream_idle_timeout');
  });

  test("the caller's abort while it is read ends it with the caller's reason", async () => {
    handlers.set('/slow-half', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[');
    });
    const ac = new AbortController();
    const res = await send('/slow-half', false, {}, ac.signal);
    const reading = res.body.text();
    ac.abort(new TotalTimeoutError(5));
    assert.equal((await failure(reading)).code, 'upstream_timeout');
  });

  test('a body destroyed before it is read is an error, not a wait for ever', async () => {
    handlers.set('/gone', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
    });
    const res = await send('/gone', false, {});
    res.body.destroy();
    assert.equal((await failure(res.body.text())).kind, 'upstream_error');
  });
});

describe('bounded reads', () => {
  test(`a non-streaming answer larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB is refused, and the rest is not read`, async () => {
    const total = MAX_ANSWER_BYTES * 8;
    handlers.set('/huge', flood('/huge', 200, total));
    const res = await send('/huge', false, {});
    const err = await failure(res.body.text());
    assert.equal(err.code, 'upstream_too_large');
    assert.ok((written.get('/huge') ?? 0) < total / 2, `the upstream wrote ${written.get('/huge')} of ${total} bytes`);
  });

  test('an endless error body is read only as far as its message needs', async () => {
    handlers.set('/endless-error', flood('/endless-error', 500, Number.MAX_SAFE_INTEGER, 4096));
    const res = await send('/endless-error', false, {});
    const err = await readUpstreamError(res);
    assert.equal(err.code, 'upstream_error');
    assert.ok(err.message.length < 1000, `message of ${err.message.length} characters`);
  });
});
