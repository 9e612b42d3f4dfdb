import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import type { Trust } from './trust.js';
import { AnswerTooLargeError, UpstreamTimeoutError, upstreamFailure } from './errors.js';
import type { GatewayError } from '../core/errors.js';

/** A line's limits on one upstream request; a line may override each (docs/admin-api.md, Lines). */
export interface Timeouts {
  connectMs: number;
  /**
   * A streamed answer: from sending the request to the first bytes of its body (an event, or a
   * keep-alive comment). Upstreams start a stream at once, so a silent one is stalled: fail over.
   */
  firstByteMs: number;
  /** A non-streaming answer: the same, but its body comes only when the whole answer is written. */
  nonStreamingFirstByteMs: number;
  /** Longest silence between two chunks of a response body. */
  idleMs: number;
  /** The whole attempt, first byte to last: a cap on endless answers. */
  totalMs: number;
}

/**
 * 45 s to the first byte of a stream: cloud APIs behind Cloudflare must send something within its
 * 100 s origin timeout and in practice start at once; 45 s leaves room for a model that thinks
 * before its first chunk or a local server loading a model, and catches a stalled line a minute
 * sooner than the old shared 300 s. A non-streaming answer keeps 300 s: its first byte comes after
 * the whole generation. 2 min of silence mid-answer, 30 min in all.
 */
export const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 10_000,
  firstByteMs: 45_000,
  nonStreamingFirstByteMs: 300_000,
  idleMs: 120_000,
  totalMs: 30 * 60_000,
};

/**
 * The most Tollgate reads of a non-streaming answer (32 MiB). Real answers are far smaller (images
 * inline are a few MB each); an upstream sending more is broken, and reading it whole would hold
 * it all in memory.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface UpstreamCall {
  lineId: string;
  /** Read, never changed: the relay hands the same URL object to every request of a line's path. */
  readonly url: URL;
  headers: Record<string, string>;
  /** The request body: bytes (relay/upstream-call.ts sends text as bytes of its own, a pass-through's unchanged body as it came), or text. */
  body: string | Uint8Array;
  /** Whether the answer is a stream: it decides the first-byte timeout. */
  stream: boolean;
  timeouts: Timeouts;
  signal: CallSignal;
}

export interface UpstreamBody extends AsyncIterable<Uint8Array> {
  /** The whole body as text, at most MAX_ANSWER_BYTES (an AnswerTooLargeError beyond). */
  text(): Promise<string>;
  /** The whole body as the bytes that came, with text()'s bound and errors. */
  bytes(): Promise<Buffer>;
  destroy(err?: Error): unknown;
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

/**
 * `https://host/v1` + `/chat/completions`, keeping any path of the base URL. A query in `path`
 * (`:streamGenerateContent?alt=sse`) joins the base URL's own.
 */
export function endpoint(baseUrl: string, path: string): URL {
  const u = new URL(baseUrl);
  const [pathname, query] = path.split('?', 2) as [string, string | undefined];
  u.pathname = u.pathname.replace(/\/+$/, '') + pathname;
  if (query) for (const [k, v] of new URLSearchParams(query)) u.searchParams.set(k, v);
  return u;
}

/**
 * What an upstream call's signal offers: what undici reads of one (`aborted`, `reason`, an `abort`
 * listener added and removed) and what the relay reads (the reason). An AbortSignal is one; so is
 * an attempt (`Attempt`).
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * One attempt at a line (relay/forward.ts): its own controller and signal in one small object.
 * Its signal covers one upstream call at a time (a retry with a quirk comes after the first call
 * ended), so a first-byte or idle timeout of that call aborts it directly, with the timeout's error
 * as the reason; the client leaving and the total timeout abort it too. Not an AbortController:
 * Node's AbortSignal is an EventTarget whose making, listeners and lookup cost 3–8 µs per request
 * (docs/performance.md), and undici needs only what CallSignal names. Its listeners run once, in
 * the order added, on the first abort; one that throws is reported as uncaught, as an
 * EventTarget's would be, without stopping the others.
 */
export class Attempt implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  /** The attempt is its own signal (the AbortController shape the relay and tests read). */
  get signal(): Attempt {
    return this;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners)
      for (const listener of listeners) {
        try {
          listener();
        } catch (err) {
          process.nextTick(() => {
            throw err;
          });
        }
      }
  }

  addEventListener(type: 'abort', listener: () => void): void {
    if (type !== 'abort' || this.aborted) return;
    const listeners = (this.listeners ??= []);
    if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    if (type !== 'abort' || !listeners) return;
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }
}

/** A new attempt (relay/forward.ts): `abort(reason)` and `signal`, as an AbortController has. */
export function attemptController(): Attempt {
  return new Attempt();
}

/**
 * The first-byte and idle timers of one request, as one AbortSignal (which also follows the
 * caller's). The idle timer measures the upstream's silence only: while the caller is busy with a
 * chunk (writing it to a slow client, say) a timer that fires is ignored, and it starts again when
 * the caller asks for the next chunk. The timeout's error is made only when a timer fires: an
 * Error captures a stack trace, which every request would otherwise pay for twice. When the
 * caller's signal is an attempt's (`attemptController`), its controller is the one aborted.
 */
class Deadline {
  private readonly controller: AbortController | Attempt;
  /** Whether `controller` is this deadline's own, following the caller's signal. */
  private readonly own: boolean;
  private timer: NodeJS.Timeout;
  /** Timing the silence between chunks (after the first), rather than the wait for the first byte. */
  private idle = false;
  /** Whether we are waiting for the upstream (headers or the next chunk). */
  waiting = true;
  fired: UpstreamTimeoutError | undefined;

  constructor(
    /** The caller's signal: its abort reason (a total timeout, the client leaving) is what the error reports. */
    readonly outer: CallSignal,
    private readonly firstByteMs: number,
    private readonly idleMs: number,
    private readonly stream: boolean,
  ) {
    this.timer = setTimeout(this.onTimer, firstByteMs);
    const shared = outer instanceof Attempt ? outer : undefined;
    this.own = shared === undefined;
    this.controller = shared ?? new AbortController();
    if (!this.own) return;
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', this.follow);
  }

  get signal(): CallSignal {
    return this.controller.signal;
  }

  private readonly follow = (): void => this.controller.abort(this.outer.reason);

  /** One callback for both timers (the first byte's, then the idle one), made once per request. */
  private readonly onTimer = (): void => this.fire();

  private fire(): void {
    if (!this.waiting) return;
    this.fired = this.idle
      ? UpstreamTimeoutError.idle(this.idleMs)
      : UpstreamTimeoutError.firstByte(this.firstByteMs, this.stream);
    this.controller.abort(this.fired);
  }

  /** From now on, the silence between chunks is timed (from the next wait()). */
  toIdle(): void {
    clearTimeout(this.timer);
    this.idle = true;
    this.timer = setTimeout(this.onTimer, this.idleMs);
  }

  /** Waiting for the upstream again: the timer starts from now (refresh() keeps its duration). */
  wait(): void {
    this.waiting = true;
    this.timer.refresh();
  }

  clear(): void {
    clearTimeout(this.timer);
    if (this.own) this.outer.removeEventListener('abort', this.follow);
  }
}

class TimedBody implements UpstreamBody {
  constructor(
    private readonly body: Readable,
    private readonly deadline: Deadline,
  ) {}

  /**
   * The chunks as they come, read with the stream's own events (as bytes() does) rather than through
   * its async iterator and a generator around it: a stream is read chunk by chunk, and those two
   * layers cost every chunk two promises' turns and their objects (docs/performance.md, "A stream's
   * first byte under load"). The same contract as the iterator had: the idle timer from the first
   * chunk on, timing only the upstream's silence (not while the caller works on a chunk); a failure
   * (an error, a timeout, a close before the end) thrown as the GatewayError it means; the body
   * destroyed when the caller stops early; the timers cleared when the reading ends in any way.
   */
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const body = this.body;
    const deadline = this.deadline;
    /** Chunks read while the caller was busy with an earlier one; the body is paused meanwhile. */
    const queue: Uint8Array[] = [];
    let listening = false;
    let delivered = false;
    let ended = false;
    let failure: GatewayError | undefined;
    let over = false;
    let waiter: { resolve(r: IteratorResult<Uint8Array>): void; reject(e: unknown): void } | undefined;
    const finish = (): void => {
      if (over) return;
      over = true;
      deadline.clear();
      // The error listener stays: an aborted body may still emit an error, which must not go uncaught.
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('close', onClose);
    };
    const fail = (err: unknown): void => {
      if (over || failure) return;
      failure = upstreamFailure(deadline.fired ?? err, deadline.outer);
      // A destroyed stream yields nothing more, as its iterator would.
      queue.length = 0;
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        finish();
        w.reject(failure);
      }
    };
    const onData = (chunk: Uint8Array): void => {
      // From the first chunk on, the silence between chunks is timed.
      if (!delivered) {
        delivered = true;
        deadline.toIdle();
      }
      deadline.waiting = false;
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w.resolve({ value: chunk, done: false });
      } else {
        queue.push(chunk);
        body.pause();
      }
    };
    const onEnd = (): void => {
      ended = true;
      if (waiter && queue.length === 0) {
        const w = waiter;
        waiter = undefined;
        finish();
        w.resolve({ value: undefined, done: true });
      }
    };
    const onError = (err: unknown): void => fail(err);
    // Closed without its end or an error (destroyed from our side): what the iterator reported.
    const prematureClose = (): Error =>
      Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const onClose = (): void => {
      if (!ended) fail(prematureClose());
    };
    const next = (): Promise<IteratorResult<Uint8Array>> => {
      if (over) return Promise.resolve({ value: undefined, done: true });
      if (failure) {
        finish();
        return Promise.reject(failure);
      }
      // Asking for the next chunk: the upstream's silence is timed again from now.
      if (delivered) deadline.wait();
      const chunk = queue.shift();
      if (chunk !== undefined) {
        deadline.waiting = false;
        if (queue.length === 0 && !ended) body.resume();
        return Promise.resolve({ value: chunk, done: false });
      }
      if (ended) {
        finish();
        return Promise.resolve({ value: undefined, done: true });
      }
      if (!listening) {
        listening = true;
        if (body.destroyed) {
          // Nothing more will come, not even 'close': fail now.
          fail(body.errored ?? prematureClose());
          finish();
          return Promise.reject(failure);
        }
        body.on('error', onError);
        body.on('end', onEnd);
        body.on('close', onClose);
        body.on('data', onData);
      } else body.resume();
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
      });
    };
    return {
      next,
      return: () => {
        if (!over) {
          finish();
          if (!ended) body.destroy();
        }
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /**
   * Read with the stream's own events rather than its async iterator, which costs a promise and
   * several objects per chunk (async-iterator and end-of-stream machinery: a few per cent of a
   * request's CPU, docs/performance.md). The same timers: the idle timer from the first chunk on,
   * started again by each chunk.
   */
  text(): Promise<string> {
    return this.bytes().then((bytes) => bytes.toString('utf8'));
  }

  bytes(): Promise<Buffer> {
    const body = this.body;
    const deadline = this.deadline;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      let first = true;
      let done = false;
      const finish = (err: unknown, bytes?: Buffer): void => {
        if (done) return;
        done = true;
        // The listeners stay: an aborted body may still emit an error, which must not go uncaught.
        deadline.clear();
        if (err === undefined) resolve(bytes!);
        else reject(err);
      };
      const onData = (chunk: Uint8Array): void => {
        if (first) deadline.toIdle();
        else deadline.wait();
        first = false;
        size += chunk.byteLength;
        if (size > MAX_ANSWER_BYTES) {
          finish(new AnswerTooLargeError(MAX_ANSWER_BYTES));
          body.destroy();
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => finish(undefined, Buffer.concat(chunks, size));
      const onError = (err: unknown): void => {
        if (!done) finish(upstreamFailure(deadline.fired ?? err, deadline.outer));
      };
      // Closed without its end or an error (destroyed from our side): as the iterator reports it.
      // 'close' follows 'end' on every whole answer: the error is built only when nothing settled first.
      const onClose = (): void => {
        if (!done)
          finish(
            upstreamFailure(deadline.fired ?? new Error('the answer ended before it was complete'), deadline.outer),
          );
      };
      if (body.destroyed) {
        // Nothing more will come, not even 'close': answer now.
        if (body.errored) onError(body.errored);
        else onClose();
        return;
      }
      body.on('data', onData);
      body.on('end', onEnd);
      body.on('error', onError);
      body.on('close', onClose);
    });
  }

  destroy(err?: Error): void {
    this.deadline.clear();
    this.body.destroy(err);
  }
}

/**
 * Pooled keep-alive HTTP client for upstreams: one undici Agent per line (its connect timeout is
 * a property of the pool), reused across requests. The first-byte and idle timeouts are Tollgate's
 * own (Deadline): undici's header timeout ends at the headers, and a stream whose headers came but
 * whose first event never does is as stalled as one that never answers.
 */
export class UpstreamClient {
  private readonly agents = new Map<string, { agent: Agent; connectMs: number }>();
  private ca: string[] | undefined;

  /** The certificate authorities upstream TLS trusts beyond Node's own (undefined: Node's own only); the admin side's fetches use them too (outbound.ts). */
  get trustedCa(): string[] | undefined {
    return this.ca;
  }

  /**
   * Which certificate authorities TLS to upstreams trusts from now on (trust.ts). Pools made with
   * the old trust close once their requests in flight are done; new requests get new pools.
   */
  setTrust(trust: Trust): void {
    this.ca = trust.ca;
    for (const { agent } of this.agents.values()) void agent.close();
    this.agents.clear();
  }

  private agentFor(lineId: string, connectMs: number): Agent {
    const found = this.agents.get(lineId);
    if (found && found.connectMs === connectMs) return found.agent;
    void found?.agent.close();
    const agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connect: { timeout: connectMs, ...(this.ca && { ca: this.ca }) },
    });
    this.agents.set(lineId, { agent, connectMs });
    return agent;
  }

  async send(call: UpstreamCall): Promise<UpstreamResponse> {
    const t = call.timeouts;
    const agent = this.agentFor(call.lineId, t.connectMs);
    const deadline = new Deadline(
      call.signal,
      call.stream ? t.firstByteMs : t.nonStreamingFirstByteMs,
      t.idleMs,
      call.stream,
    );
    try {
      const res = await agent.request({
        origin: call.url.origin,
        path: call.url.pathname + call.url.search,
        method: 'POST',
        headers: call.headers,
        body: call.body,
        // An Attempt where the relay made one: undici takes any signal with aborted, reason and an
        // abort listener (its types name only AbortSignal and EventEmitter).
        signal: deadline.signal as AbortSignal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      return {
        status: res.statusCode,
        headers: res.headers as IncomingHttpHeaders,
        body: new TimedBody(res.body, deadline),
      };
    } catch (err) {
      deadline.clear();
      throw upstreamFailure(deadline.fired ?? err, call.signal);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.agent.close()));
    this.agents.clear();
  }
}
