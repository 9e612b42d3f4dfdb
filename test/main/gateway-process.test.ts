import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { describeFatal, EXIT_AFTER_ERROR_MS, superviseProcess, type ProcessLike } from '../../main/gateway-process.js';

/** Shaped like Electron's UtilityProcess: an EventEmitter, so an 'error' nobody listens to throws. */
class FakeProcess extends EventEmitter implements ProcessLike {
  stdout = new PassThrough();
  stderr = new PassThrough();
  posted: unknown[] = [];
  kills = 0;
  postThrows = false;
  postMessage(message: unknown): void {
    if (this.postThrows) throw new Error('the process is gone');
    this.posted.push(message);
  }
  kill(): boolean {
    this.kills++;
    return true;
  }
}

function setup() {
  const proc = new FakeProcess();
  const logs: string[] = [];
  const timers: { ms: number; fn: () => void; cancelled: boolean }[] = [];
  const child = superviseProcess(proc, {
    log: (l) => logs.push(l),
    setTimer: (fn, ms) => {
      const t = { ms, fn, cancelled: false };
      timers.push(t);
      return () => (t.cancelled = true);
    },
  });
  const fire = (ms: number) => {
    for (const t of timers.filter((x) => x.ms === ms && !x.cancelled)) {
      t.cancelled = true;
      t.fn();
    }
  };
  return { proc, child, logs, timers, fire };
}

const tick = () => new Promise((r) => setImmediate(r));

test('an unguarded emitter throws on "error": the reason a listener is needed at all', () => {
  const bare = new EventEmitter();
  assert.throws(() => bare.emit('error', 'FatalError', 'v8', '{}'));
});

test('a fatal error in the gateway process does not throw in main; the exit that follows carries it as the reason', async () => {
  const { proc, child, logs } = setup();
  proc.stderr.write('<--- Last few GCs --->\n');
  await tick();
  assert.doesNotThrow(() =>
    proc.emit('error', 'FatalError', 'Reached heap limit', '{"environmentVariables":{"SECRET":"x"}}'),
  );
  proc.emit('exit', 134);
  const out = await child.exited;
  assert.deepEqual(out, { code: 134, reason: describeFatal('FatalError', 'Reached heap limit') });
  assert.match(out.reason, /fatal error \(FatalError at Reached heap limit\)/);
  assert.ok(
    !logs.join('\n').includes('environmentVariables'),
    'the diagnostic report (with the environment) is not logged',
  );
});

test('when no exit follows a fatal error, the process is killed and counted as exited', async () => {
  const { proc, child, fire } = setup();
  proc.emit('error', 'FatalError', '', '');
  let settled = false;
  void child.exited.then(() => (settled = true));
  await tick();
  assert.equal(settled, false);
  fire(EXIT_AFTER_ERROR_MS);
  const out = await child.exited;
  assert.equal(proc.kills, 1);
  assert.equal(out.code, null);
  assert.match(out.reason, /fatal error \(FatalError\)/);
  proc.emit('exit', 9);
  assert.deepEqual(await child.exited, out, 'a late exit changes nothing');
});

test('ready resolves with the endpoint; a start failure names itself; otherwise the last line of output explains the exit', async () => {
  const a = setup();
  a.proc.emit('message', { type: 'ready', url: 'http://127.0.0.1:4141', token: 'tga_x' });
  assert.deepEqual(await a.child.ready, { url: 'http://127.0.0.1:4141', token: 'tga_x' });

  const b = setup();
  b.proc.emit('message', { type: 'failed', message: 'port 4141 is in use by another program' });
  b.proc.emit('message', null);
  b.proc.emit('message', 'garbage');
  b.proc.emit('exit', 1);
  assert.equal((await b.child.exited).reason, 'port 4141 is in use by another program');

  const c = setup();
  c.proc.stderr.write('first\nError: SQLITE_CORRUPT\n\n');
  await tick();
  c.proc.emit('exit', 1);
  assert.equal((await c.child.exited).reason, 'Error: SQLITE_CORRUPT');
  assert.ok(c.logs.includes('[gateway] Error: SQLITE_CORRUPT'), 'its output goes to the log');

  const d = setup();
  d.proc.emit('exit', 3);
  assert.equal((await d.child.exited).reason, 'the gateway process exited with code 3');
});

test('a broken output pipe is logged, not thrown', () => {
  const { proc, logs } = setup();
  assert.doesNotThrow(() => proc.stdout.emit('error', new Error('EPIPE')));
  assert.ok(logs.some((l) => l.includes('EPIPE')));
});

test('stop asks the process to stop and waits for its exit; one that does not exit in time is killed', async () => {
  const a = setup();
  const stopped = a.child.stop(30_000);
  assert.deepEqual(a.proc.posted, [{ type: 'stop' }]);
  a.proc.emit('exit', 0);
  await stopped;
  assert.equal(a.proc.kills, 0);
  assert.ok(
    a.timers.every((t) => t.cancelled),
    'the grace timer is cleared',
  );

  const b = setup();
  b.proc.postThrows = true;
  const late = b.child.stop(30_000);
  await tick();
  b.fire(30_000);
  await tick();
  assert.equal(b.proc.kills, 1);
  b.proc.emit('exit', null as unknown as number);
  await late;
  assert.ok(b.logs.some((l) => l.includes('could not ask it to stop')));

  const c = setup();
  c.proc.emit('exit', 1);
  await c.child.stop(1000);
  assert.deepEqual(c.proc.posted, [], 'a process already gone is not asked');
});
