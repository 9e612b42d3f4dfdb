/**
 * The real forward loop (relay/forward.ts) over the real line pool (routing/lines.ts: breaker,
 * 429 holds, rate windows), with a scripted upstream leg and a fake client response.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { GatewayError } from '../../gateway/core/errors.js';
import { emptyUsage } from '../../gateway/core/usage.js';
import type { Outcome } from '../../gateway/relay/exchange.js';
import { forward, type ForwardDeps } from '../../gateway/relay/forward.js';
import { FAILURES_TO_OPEN, LineHealth } from '../../gateway/routing/health.js';
import { Lines } from '../../gateway/routing/lines.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import type { CallSignal } from '../../gateway/upstream/client.js';
import type { LineRecord } from '../../gateway/store/types.js';
import { upstreamFailure } from '../../gateway/upstream/errors.js';
import { waitFor } from '../helpers/gateway.js';
import { admitted, FakeResponse, line } from '../helpers/relay-fakes.js';

const OK: Outcome = {
  status: 200,
  usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 2 },
  usageEstimated: false,
  error: null,
};
const PROMPT = { ...emptyUsage(), inputTokens: 42 };

/** What a ledger row keeps of an outcome. */
type Row = Pick<Outcome, 'status' | 'usage' | 'usageEstimated'> & { errorCode: string | null };

function row(o: Outcome): Row {
  return { status: o.status, usage: o.usage, usageEstimated: o.usageEstimated, errorCode: o.error?.code ?? null };
}

/** A billing service that records the row of every settlement. */
function recording(rows: Row[]): ForwardDeps['billing'] {
  return {
    settle: async (c) => {
      rows.push({ status: c.status, usage: c.usage, usageEstimated: c.usageEstimated, errorCode: c.errorCode });
      return null;
    },
  };
}

function pool(lines: LineRecord[], health = new LineHealth()): Lines {
  return new Lines({ data: { version: 1, keys: [], lines, groups: [], aliases: [] } }, new MemorySecretStore(), {
    health,
  });
}

type Leg = (signal: CallSignal, res: FakeResponse) => Outcome | Promise<Outcome>;

let conversations = 0;

/**
 * One request through forward(): `legs` says what each line's attempt does; returns what happened.
 * Each request is a conversation of its own (a key of its own) unless `keyId` says otherwise, so
 * line affinity leaves the order as given.
 */
async function request(
  lines: Lines,
  candidates: LineRecord[],
  legs: Record<string, Leg>,
  keyId = `key_${++conversations}`,
) {
  const { exchange } = admitted(candidates);
  exchange.admission!.keyId = keyId;
  const res = new FakeResponse();
  const tried: string[] = [];
  const settled: Row[] = [];
  const result = forward(
    { lines, billing: recording(settled) },
    exchange,
    res.client,
    async (signal) => {
      const id = exchange.admission!.line.id;
      tried.push(id);
      const leg = legs[id];
      if (!leg) throw new Error(`no leg scripted for ${id}`);
      return leg(signal, res);
    },
    async () => PROMPT,
  ).then(
    (outcome) => ({ outcome, error: undefined }),
    (error: GatewayError) => ({ outcome: undefined, error }),
  );
  return { ...(await result), tried, settled, exchange, res };
}

const fail =
  (status: number, code: string, retryAfter?: number): Leg =>
  () => {
    throw new GatewayError(
      status === 429 ? 'rate_limit' : status >= 500 ? 'upstream_error' : 'invalid_request',
      `upstream said ${status}`,
      {
        code,
        status,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      },
    );
  };
const ok: Leg = () => OK;

describe('failover', () => {
  test('tries the lines in order, moving on after a 5xx, and settles the one answer', async () => {
    const [a, b, c] = [line('a'), line('b'), line('c')];
    const lines = pool([a, b, c]);
    const r = await request(lines, [a, b, c], {
      a: fail(502, 'upstream_error'),
      b: fail(503, 'upstream_unavailable'),
      c: ok,
    });
    assert.deepEqual(r.tried, ['a', 'b', 'c']);
    assert.equal(r.outcome, OK);
    assert.deepEqual(r.settled, [row(OK)]);
    assert.equal(r.exchange.attempts, 3);
    assert.equal(r.exchange.admission!.line.id, 'c');
    assert.deepEqual(r.exchange.notes, [
      'line "a" failed (502 upstream_error)',
      'line "b" failed (503 upstream_unavailable)',
    ]);
    assert.deepEqual(
      ['a', 'b', 'c'].map((id) => lines.health.describe(id, Date.now()).failures),
      [1, 1, 0],
    );
  });

  test('each attempt asks for the model by the id the line knows it by', async () => {
    const [a, b] = [line('a', { modelMap: { 'gpt-4o': 'vendor/gpt-4o' } }), line('b')];
    const seen: string[] = [];
    const { exchange } = admitted([a, b]);
    const res = new FakeResponse();
    await forward(
      { lines: pool([a, b]), billing: recording([]) },
      exchange,
      res.client,
      async () => {
        seen.push(exchange.admission!.upstreamModel);
        if (seen.length === 1) throw new GatewayError('upstream_error', 'down', { code: 'upstream_error' });
        return OK;
      },
      async () => PROMPT,
    );
    assert.deepEqual(seen, ['vendor/gpt-4o', 'gpt-4o']);
  });

  test('a 4xx about the request is not retried and leaves the line healthy', async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    const r = await request(lines, [a, b], { a: fail(400, 'upstream_rejected'), b: ok });
    assert.deepEqual(r.tried, ['a']);
    assert.equal(r.error?.code, 'upstream_rejected');
    assert.deepEqual(r.settled, []);
    assert.equal(lines.health.describe('a', Date.now()).failures, 0);
  });

  test('once the answer has started, a failure is not retried on another line', async () => {
    const [a, b] = [line('a'), line('b')];
    const r = await request(pool([a, b]), [a, b], {
      a: (_signal, res) => {
        res.writeHead(200);
        throw new GatewayError('upstream_error', 'cut', { code: 'upstream_error' });
      },
      b: ok,
    });
    assert.deepEqual(r.tried, ['a']);
    assert.equal(r.error?.code, 'upstream_error');
  });

  test('a missing line key fails over without counting against the line', async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    for (let i = 0; i < FAILURES_TO_OPEN + 1; i++) {
      const r = await request(lines, [a, b], { a: fail(503, 'line_credential_missing'), b: ok });
      assert.deepEqual(r.tried, ['a', 'b']);
    }
    assert.deepEqual(lines.health.describe('a', Date.now()), {
      state: 'closed',
      failures: 0,
      waitMs: 0,
      lastTest: null,
    });
  });

  test('the client leaving before any answer aborts the attempt and bills the counted prompt', async () => {
    const [a, b] = [line('a'), line('b')];
    const { exchange } = admitted([a, b]);
    const res = new FakeResponse();
    const settled: Row[] = [];
    const tried: string[] = [];
    const done = forward(
      { lines: pool([a, b]), billing: recording(settled) },
      exchange,
      res.client,
      (signal) => {
        tried.push(exchange.admission!.line.id);
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(upstreamFailure(signal.reason, signal))),
        );
      },
      async () => PROMPT,
    );
    res.hangUp();
    const outcome = await done;
    assert.deepEqual(tried, ['a']);
    assert.equal(outcome.status, 499);
    assert.equal(outcome.error?.code, 'client_closed');
    assert.deepEqual([outcome.usage, outcome.usageEstimated], [PROMPT, true]);
    assert.deepEqual(settled, [row(outcome)]);
  });

  test("the line's total timeout aborts the attempt, which fails over", async () => {
    const [a, b] = [line('a', { timeouts: { totalMs: 20 } }), line('b')];
    const r = await request(pool([a, b]), [a, b], {
      a: (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(upstreamFailure(signal.reason, signal))),
        ),
      b: ok,
    });
    assert.deepEqual(r.tried, ['a', 'b']);
    assert.deepEqual(r.exchange.notes, ['line "a" failed (504 upstream_timeout)']);
    assert.equal(r.outcome, OK);
  });
});

describe('upstream 429 holds', () => {
  test('a 429 puts the line on hold for its retry-after, without counting as a failure', async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    const first = await request(lines, [a, b], { a: fail(429, 'upstream_rate_limited', 7), b: ok });
    assert.deepEqual(first.tried, ['a', 'b']);
    const held = lines.health.describe('a', Date.now());
    assert.equal(held.failures, 0);
    assert.ok(held.waitMs > 6_000 && held.waitMs <= 7_000, `held for ${held.waitMs} ms`);
    const second = await request(lines, [a, b], { b: ok });
    assert.deepEqual(second.tried, ['b']);
  });

  test('with every line on hold, a 429 that says when the first one frees', async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    const r1 = await request(lines, [a, b], {
      a: fail(429, 'upstream_rate_limited', 30),
      b: fail(429, 'upstream_rate_limited', 3),
    });
    assert.deepEqual(r1.tried, ['a', 'b']);
    assert.equal(r1.error?.code, 'upstream_rate_limited');
    const r2 = await request(lines, [a, b], {});
    assert.deepEqual(r2.tried, []);
    assert.equal(r2.error?.status, 429);
    assert.equal(r2.error?.code, 'line_rate_limited');
    assert.equal(r2.error?.retryAfter, 3);
  });

  test('a line at its own requests-per-minute limit is skipped for the next, and alone it answers 429', async () => {
    const [a, b] = [line('a', { rpm: 1 }), line('b')];
    const lines = pool([a, b]);
    assert.deepEqual((await request(lines, [a, b], { a: ok })).tried, ['a']);
    assert.deepEqual((await request(lines, [a, b], { b: ok })).tried, ['b']);
    const alone = await request(lines, [a], {});
    assert.deepEqual(alone.tried, []);
    assert.equal(alone.error?.code, 'line_rate_limited');
    assert.ok(
      alone.error!.retryAfter! >= 59 && alone.error!.retryAfter! <= 60,
      `retry after ${alone.error!.retryAfter} s`,
    );
  });
});

describe('circuit breaker', () => {
  test(`${FAILURES_TO_OPEN} failures in a row open the breaker: the line is skipped, and alone it answers 503 with a retry time`, async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b], new LineHealth(60_000));
    for (let i = 0; i < FAILURES_TO_OPEN; i++)
      assert.deepEqual((await request(lines, [a, b], { a: fail(500, 'upstream_error'), b: ok })).tried, ['a', 'b']);
    assert.equal(lines.health.describe('a', Date.now()).state, 'open');
    assert.deepEqual((await request(lines, [a, b], { b: ok })).tried, ['b']);
    const alone = await request(lines, [a], {});
    assert.deepEqual(alone.tried, []);
    assert.equal(alone.error?.status, 503);
    assert.equal(alone.error?.code, 'lines_cooling_down');
    assert.equal(alone.error?.retryAfter, 60);
  });

  test('after the cool-down one request probes the line; while it runs others go elsewhere; success closes the breaker', async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b], new LineHealth(30));
    for (let i = 0; i < FAILURES_TO_OPEN; i++) await request(lines, [a, b], { a: fail(500, 'upstream_error'), b: ok });
    await sleep(40);
    assert.equal(lines.health.describe('a', Date.now()).state, 'half-open');
    let release!: () => void;
    const probe = request(lines, [a, b], { a: () => new Promise<Outcome>((resolve) => (release = () => resolve(OK))) });
    const during = await request(lines, [a, b], { b: ok });
    assert.deepEqual(during.tried, ['b']);
    release();
    assert.deepEqual((await probe).tried, ['a']);
    assert.deepEqual(lines.health.describe('a', Date.now()), {
      state: 'closed',
      failures: 0,
      waitMs: 0,
      lastTest: null,
    });
  });

  test('a failed probe opens the breaker again for twice as long', async () => {
    const a = line('a');
    const health = new LineHealth(30);
    const lines = pool([a], health);
    for (let i = 0; i < FAILURES_TO_OPEN; i++) await request(lines, [a], { a: fail(500, 'upstream_error') });
    await sleep(40);
    const probe = await request(lines, [a], { a: fail(500, 'upstream_error') });
    assert.deepEqual(probe.tried, ['a']);
    const after = health.describe('a', Date.now());
    assert.equal(after.state, 'open');
    assert.ok(after.waitMs > 30 && after.waitMs <= 60, `open for ${after.waitMs} ms`);
  });

  test('an answer that ends with an in-band upstream error counts against the line', async () => {
    const a = line('a');
    const lines = pool([a]);
    const broken: Outcome = {
      ...OK,
      status: 502,
      error: new GatewayError('upstream_error', 'mid-stream', { code: 'upstream_stream_error' }),
    };
    const r = await request(lines, [a], { a: () => broken });
    assert.equal(r.outcome, broken);
    assert.deepEqual(r.settled, [row(broken)]);
    assert.equal(lines.health.describe('a', Date.now()).failures, 1);
  });
});

/** Opens the breaker of `a` with failures and waits out its (short) cool-down: the next request is the probe. */
async function halfOpen(lines: Lines, a: LineRecord): Promise<void> {
  for (let i = 0; i < FAILURES_TO_OPEN; i++) await request(lines, [a], { a: fail(500, 'upstream_error') });
  await waitFor(() => lines.health.describe(a.id, Date.now()).state === 'half-open', 'the cool-down to end');
}

/** A leg that waits until its attempt is aborted, then fails as the upstream client does. */
const stall: Leg = (signal) =>
  new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(upstreamFailure(signal.reason, signal))),
  );

describe('a breaker that always recovers', () => {
  test('a probe the client hangs up on opens the breaker again (same cool-down), and the next probe goes through', async () => {
    const a = line('a');
    const lines = pool([a], new LineHealth(30));
    await halfOpen(lines, a);
    const { exchange } = admitted([a]);
    const res = new FakeResponse();
    const done = forward(
      { lines, billing: recording([]) },
      exchange,
      res.client,
      async (signal) => stall(signal, res),
      async () => PROMPT,
    );
    res.hangUp();
    assert.equal((await done).status, 499);
    const after = lines.health.describe('a', Date.now());
    assert.equal(after.state, 'open', 'the probe proved nothing: the line waits another cool-down');
    assert.ok(after.waitMs > 0 && after.waitMs <= 30, `open for ${after.waitMs} ms, not doubled`);
    await waitFor(() => lines.health.describe('a', Date.now()).state === 'half-open', 'the cool-down to end');
    const next = await request(lines, [a], { a: ok });
    assert.deepEqual(next.tried, ['a'], 'the next probe reaches the line');
    assert.equal(lines.health.describe('a', Date.now()).state, 'closed');
  });

  test('a probe answered with an upstream 4xx closes the breaker: the upstream is up', async () => {
    const a = line('a');
    const lines = pool([a], new LineHealth(30));
    await halfOpen(lines, a);
    const probe = await request(lines, [a], { a: fail(400, 'upstream_rejected') });
    assert.equal(probe.error?.code, 'upstream_rejected');
    assert.deepEqual(lines.health.describe('a', Date.now()), {
      state: 'closed',
      failures: 0,
      waitMs: 0,
      lastTest: null,
    });
    assert.deepEqual((await request(lines, [a], { a: ok })).tried, ['a']);
  });

  test("Tollgate's own error is not the line's failure and is not tried on another line", async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    for (let i = 0; i < FAILURES_TO_OPEN + 1; i++) {
      const r = await request(lines, [a, b], {
        a: () => {
          throw new TypeError("Cannot read properties of undefined (reading 'x')");
        },
        b: ok,
      });
      assert.deepEqual(r.tried, ['a']);
      assert.equal(r.error?.status, 500);
    }
    assert.deepEqual(lines.health.describe('a', Date.now()), {
      state: 'closed',
      failures: 0,
      waitMs: 0,
      lastTest: null,
    });
  });

  test("Tollgate's own error on a probe ends the probe", async () => {
    const a = line('a');
    const lines = pool([a], new LineHealth(30));
    await halfOpen(lines, a);
    const r = await request(lines, [a], {
      a: () => {
        throw new TypeError('a bug');
      },
    });
    assert.equal(r.error?.status, 500);
    assert.notEqual(lines.health.describe('a', Date.now()).state, 'half-open');
    await waitFor(() => lines.health.describe('a', Date.now()).state === 'half-open', 'the cool-down to end');
    assert.deepEqual((await request(lines, [a], { a: ok })).tried, ['a']);
  });

  test('a probe that finds the line at its requests-per-minute limit gives the probe back', async () => {
    const [a, b] = [line('a', { rpm: 1 }), line('b')];
    const lines = pool([a, b], new LineHealth(30));
    for (let i = 0; i < FAILURES_TO_OPEN; i++) lines.health.record('a', 'down', Date.now());
    assert.equal(lines.take(a, Date.now()), 0, "the window's one slot is taken");
    await waitFor(() => lines.health.describe('a', Date.now()).state === 'half-open', 'the cool-down to end');
    const r = await request(lines, [a, b], { b: ok });
    assert.deepEqual(r.tried, ['b']);
    assert.equal(lines.health.tryUse('a', Date.now()), 'probe', 'a later request may still probe the line');
  });

  test("an upstream 429's hold is capped at 10 minutes whatever its retry-after", async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    await request(lines, [a, b], { a: fail(429, 'upstream_rate_limited', 99_999_999), b: ok });
    const held = lines.health.describe('a', Date.now());
    assert.ok(held.waitMs > 0 && held.waitMs <= 10 * 60_000, `held for ${held.waitMs} ms`);
  });
});

describe('line affinity', () => {
  test('the next request of the same key and model goes first to the line that answered the last one', async () => {
    const [a, b] = [line('a'), line('b')];
    const lines = pool([a, b]);
    const legs = { a: ok, b: ok };
    assert.deepEqual((await request(lines, [a, b], { a: fail(503, 'upstream_error'), b: ok }, 'k')).tried, ['a', 'b']);
    assert.deepEqual((await request(lines, [a, b], legs, 'k')).tried, ['b'], 'b answered last');
    assert.deepEqual((await request(lines, [a, b], legs, 'other')).tried, ['a'], 'another key keeps the order');
  });
});
