import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GatewayPhase } from '../../main/state.js';
import {
  BACKOFF,
  nextAttempt,
  restartDelayMs,
  Supervisor,
  type Endpoint,
  type GatewayChild,
} from '../../main/supervisor.js';

test('restart delays double from 1 s and stop at a minute', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8].map((a) => restartDelayMs(a)),
    [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000],
  );
  assert.equal(nextAttempt(5, BACKOFF.stableMs - 1), 6, 'a quick death counts up');
  assert.equal(nextAttempt(5, BACKOFF.stableMs), 1, 'a process that ran a minute was healthy: count afresh');
});

/** A gateway process under test control. */
class FakeChild implements GatewayChild {
  ready: Promise<Endpoint>;
  exited: Promise<{ code: number | null; reason: string }>;
  listen!: (ep: Endpoint) => void;
  die!: (reason: string) => void;
  stopCalls: number[] = [];
  constructor() {
    this.ready = new Promise((r) => (this.listen = r));
    this.exited = new Promise((r) => (this.die = (reason) => r({ code: 1, reason })));
  }
  async stop(graceMs: number): Promise<void> {
    this.stopCalls.push(graceMs);
    this.die('stopped');
  }
}

function harness(running: Endpoint | null = null, spawnError?: Error) {
  let clock = 0;
  const timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  const children: FakeChild[] = [];
  const phases: GatewayPhase[] = [];
  let found = running;
  const sup = new Supervisor({
    findRunning: async () => found,
    spawn: () => {
      if (spawnError) throw spawnError;
      const c = new FakeChild();
      children.push(c);
      return c;
    },
    onPhase: (p) => phases.push(p),
    setTimer: (fn, ms) => {
      const t = { at: clock + ms, fn, cancelled: false };
      timers.push(t);
      return () => (t.cancelled = true);
    },
    now: () => clock,
  });
  const flush = () => new Promise<void>((r) => setImmediate(r));
  return {
    sup,
    children,
    phases,
    setFound: (e: Endpoint | null) => (found = e),
    async advance(ms: number) {
      clock += ms;
      for (const t of timers.filter((x) => !x.cancelled && x.at <= clock)) {
        t.cancelled = true;
        t.fn();
      }
      await flush();
      await flush();
    },
    flush,
  };
}

test('starts its own gateway when none runs, and reports it running once it listens', async () => {
  const h = harness();
  await h.sup.start();
  assert.equal(h.children.length, 1);
  h.children[0]!.listen({ url: 'http://127.0.0.1:4141', token: 't' });
  await h.flush();
  assert.deepEqual(h.phases, [{ kind: 'starting' }, { kind: 'running', url: 'http://127.0.0.1:4141', owned: true }]);
});

test('attaches to a gateway that already serves the data dir instead of starting a second writer', async () => {
  const h = harness({ url: 'http://127.0.0.1:4141', token: 't' });
  await h.sup.start();
  assert.equal(h.children.length, 0);
  assert.deepEqual(h.phases.at(-1), { kind: 'running', url: 'http://127.0.0.1:4141', owned: false });
  h.setFound(null);
  await h.sup.lost();
  assert.equal(h.children.length, 1, 'the attached gateway went away: start our own');
});

test('a gateway that keeps dying is restarted with growing delays; a healthy run resets the count', async () => {
  const h = harness();
  await h.sup.start();
  h.children[0]!.die('port 4141 is in use by another program');
  await h.flush();
  assert.deepEqual(h.phases.at(-1), {
    kind: 'restarting',
    attempt: 1,
    inMs: 1000,
    reason: 'port 4141 is in use by another program',
  });
  await h.advance(999);
  assert.equal(h.children.length, 1, 'not before the delay');
  await h.advance(1);
  assert.equal(h.children.length, 2);
  h.children[1]!.die('crash');
  await h.flush();
  assert.deepEqual(h.phases.at(-1), { kind: 'restarting', attempt: 2, inMs: 2000, reason: 'crash' });
  await h.advance(2000);
  assert.equal(h.children.length, 3);
  h.children[2]!.listen({ url: 'http://127.0.0.1:4141', token: 't' });
  await h.advance(BACKOFF.stableMs);
  h.children[2]!.die('out of memory');
  await h.flush();
  assert.deepEqual(h.phases.at(-1), { kind: 'restarting', attempt: 1, inMs: 1000, reason: 'out of memory' });
});

test('stop asks our gateway to close with the grace period and cancels a pending restart', async () => {
  const h = harness();
  await h.sup.start();
  h.children[0]!.listen({ url: 'u', token: 't' });
  await h.flush();
  await h.sup.stop(30_000);
  assert.deepEqual(h.children[0]!.stopCalls, [30_000]);
  assert.deepEqual(h.phases.slice(-2), [{ kind: 'stopping' }, { kind: 'stopped' }]);
  await h.advance(120_000);
  assert.equal(h.children.length, 1, 'no restart after stop');

  const g = harness();
  await g.sup.start();
  g.children[0]!.die('crash');
  await g.flush();
  await g.sup.stop(1000);
  await g.advance(120_000);
  assert.equal(g.children.length, 1, 'the scheduled restart was cancelled');
  assert.deepEqual(g.phases.at(-1), { kind: 'stopped' });
});

test('an attached gateway is left running on stop', async () => {
  const h = harness({ url: 'u', token: 't' });
  await h.sup.start();
  await h.sup.stop(1000);
  assert.equal(h.children.length, 0);
  assert.deepEqual(h.phases.at(-1), { kind: 'stopped' });
});

test('a gateway that can never start is not restarted for ever: after maxFailures quick deaths it stops and says why', async () => {
  const h = harness();
  await h.sup.start();
  for (let i = 0; i < BACKOFF.maxFailures; i++) {
    h.children.at(-1)!.die('port 4141 is in use by another program');
    await h.flush();
    if (i < BACKOFF.maxFailures - 1) await h.advance(restartDelayMs(i + 1));
  }
  assert.equal(h.children.length, BACKOFF.maxFailures);
  assert.deepEqual(h.phases.at(-1), {
    kind: 'failed',
    failures: BACKOFF.maxFailures,
    reason: 'port 4141 is in use by another program',
  });
  await h.advance(10 * 60_000);
  assert.equal(h.children.length, BACKOFF.maxFailures, 'no more restarts by itself');

  // The user fixed it and chose "Try again now": a fresh count.
  await h.sup.retry();
  assert.equal(h.children.length, BACKOFF.maxFailures + 1);
  h.children.at(-1)!.die('still busy');
  await h.flush();
  assert.deepEqual(h.phases.at(-1), { kind: 'restarting', attempt: 1, inMs: 1000, reason: 'still busy' });
  await h.sup.retry();
  assert.equal(h.children.length, BACKOFF.maxFailures + 2, '"Try again now" skips the pending delay');
});

test('a process that cannot even be created counts as a failure, with its reason', async () => {
  const h = harness(null, new Error('ENOENT: gateway-child.js'));
  await h.sup.start();
  assert.deepEqual(h.phases.at(-1), {
    kind: 'restarting',
    attempt: 1,
    inMs: 1000,
    reason: 'could not start the gateway process: ENOENT: gateway-child.js',
  });
});

test('resume after stop runs the gateway again (an update that did not install); a second stop waits for the first', async () => {
  const h = harness();
  await h.sup.start();
  h.children[0]!.listen({ url: 'u', token: 't' });
  await h.flush();
  const first = h.sup.stop(1000);
  const second = h.sup.stop(1000);
  await Promise.all([first, second]);
  assert.deepEqual(h.children[0]!.stopCalls, [1000], 'one stop');
  await h.sup.resume();
  assert.equal(h.children.length, 2);
  h.children[1]!.listen({ url: 'u2', token: 't' });
  await h.flush();
  assert.deepEqual(h.phases.at(-1), { kind: 'running', url: 'u2', owned: true });
  await h.sup.resume();
  assert.equal(h.children.length, 2, 'resume does nothing while it runs');
});
