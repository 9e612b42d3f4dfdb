/**
 * The timeline of one request at c=1: when each step of the request path happens, from marks taken in one
 * process (`node:diagnostics_channel` for the server's request and answer and for undici's upstream request,
 * wrappers on a few of the gateway's methods), for the gateway (a build's `dist/`, set up as the bench does) and
 * the bare proxy, with the mock upstream as a child process. At c=1 nothing queues, so every gap between two
 * marks is the request's own path: CPU, or a wait for a later turn of the event loop.
 *
 * Two probes show when the event loop runs its check phase: `probe1` is an immediate queued when undici has
 * the upstream request, `probe2` the immediate queued inside another queued at that moment (the ledger's way of
 * committing a pending row a turn later). In a bare process both run within about 0.1 ms. Run late, either the
 * loop waited in poll with an immediate queued, or the thread was off the CPU: `--switches` counts the main
 * thread's involuntary context switches across the upstream write (unpinned, the mock woken by that write can
 * take this process's core; `--pin` pins as the bench does). `--trace` logs every callback (async hooks) and
 * reports the time the loop spent outside them before the upstream write: the request path's waits.
 *
 * Usage: node --import tsx bench/timeline.ts [--gateway-dir DIR] [--requests N] [--rounds R] [--phase c16-delay50|stream-c16|c1]
 *   [--paths a,b] [--pin] [--switches] [--trace]
 * Prints, per path, the median over each round's requests of the time from the server's request to each mark.
 */
import { createHook } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { PATHS, PHASES, requestFor } from './matrix.js';
import { Cleanup, startMock } from './processes.js';
import { listenReferenceProxy } from './reference-proxy.js';
import { setupGateway, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './setup.js';
import { median } from './stats.js';

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}
const REQUESTS = Number(flag('--requests', '100'));
const ROUNDS = Number(flag('--rounds', '2'));
const ROOT = flag('--gateway-dir', new URL('..', import.meta.url).pathname).replace(/\/$/, '');
const PHASE = PHASES.find((p) => p.id === flag('--phase', 'c16-delay50'))!;
const PATH_IDS = flag('--paths', 'proxy-chat,chat>openai-chat,messages>openai-chat').split(',');

process.env.TOLLGATE_CATALOGUE_DATE ??= '2026-11-24';
process.env[UPSTREAM_KEY_ENV] = UPSTREAM_KEY;

/** The marks of the request under way (c=1: one at a time), in ms since the server had it. */
let marks: Map<string, number> | undefined;
let t0 = 0;
function mark(name: string): void {
  if (!marks) return;
  const t = performance.now();
  if (name === 'in') t0 = t;
  if (!marks.has(name)) marks.set(name, t - t0);
  if (TRACE) trace.push([t - t0, name, cpu()]);
}

let upstreamOrigin = '';
const isUpstream = (request: { origin?: unknown }): boolean => String(request.origin).startsWith(upstreamOrigin);

subscribe('http.server.request.start', () => mark('in'));
const TRACE = process.argv.includes('--trace');
const SWITCHES = process.argv.includes('--switches');
const trace: [number, string, number][] = [];
const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const types = new Map<number, string>();
if (TRACE)
  createHook({
    init(id, type) {
      types.set(id, type);
    },
    before(id) {
      if (marks) trace.push([performance.now() - t0, `before ${types.get(id)}`, cpu()]);
    },
    after(id) {
      if (marks) trace.push([performance.now() - t0, `after ${types.get(id)}`, cpu()]);
      if (marks && watch) {
        watch = false;
        trace.push([performance.now() - t0, switches(), cpu()]);
      }
    },
  }).enable();
subscribe('http.server.response.finish', () => mark('answer finished'));
subscribe('undici:request:create', (m) => {
  const { request } = m as { request: { origin?: unknown } };
  if (!isUpstream(request)) return;
  mark('undici has the upstream request');
  setImmediate(() => mark('probe1: an immediate queued then'));
  setImmediate(() => setImmediate(() => mark('probe2: an immediate queued in one')));
});
subscribe('undici:client:sendHeaders', (m) => {
  if (isUpstream((m as { request: { origin?: unknown } }).request)) {
    if (TRACE) trace.push([performance.now() - t0, switches(), cpu()]);
    mark('upstream request written');
    if (SWITCHES) invol0 = involuntary();
  }
});
const switches = (): string => {
  const st = readFileSync('/proc/thread-self/status', 'utf8');
  return `vol ${/^voluntary_ctxt_switches:\s+(\d+)/m.exec(st)![1]} invol ${/nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(st)![1]}`;
};
let watch = false;
let invol0 = 0;
const involuntary = (): number =>
  Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync('/proc/thread-self/status', 'utf8'))![1]);
subscribe('undici:request:bodySent', (m) => {
  if (isUpstream((m as { request: { origin?: unknown } }).request)) {
    mark('upstream body sent');
    if (SWITCHES && marks && involuntary() > invol0) marks.set('preempted during the write (share)', 1);
    if (TRACE) {
      trace.push([performance.now() - t0, switches(), cpu()]);
      watch = true;
    }
  }
});
subscribe('undici:request:headers', (m) => {
  if (isUpstream((m as { request: { origin?: unknown } }).request)) mark("upstream's headers");
});
subscribe('undici:request:trailers', (m) => {
  if (isUpstream((m as { request: { origin?: unknown } }).request)) mark("upstream's answer complete");
});

/** Wraps `proto[name]` so that each call marks `label` (its first call per request). */
function wrap(proto: Record<string, unknown>, name: string, label: string): void {
  const original = proto[name] as (...args: unknown[]) => unknown;
  proto[name] = function (this: unknown, ...args: unknown[]) {
    mark(label);
    return original.apply(this, args);
  };
}

async function gatewayAt(root: string, mockUrl: string): Promise<{ url: string; key: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'tollgate-timeline-'));
  const load = async <T>(path: string): Promise<T> =>
    (await import(pathToFileURL(`${root}/dist/gateway/${path}`).href)) as T;
  const { serve } = await load<typeof import('../gateway/serve.js')>('serve.js');
  const { MemorySecretStore } = await load<typeof import('../gateway/store/secrets.js')>('store/secrets.js');
  const { Billing } = await load<typeof import('../gateway/billing/billing.js')>('billing/billing.js');
  const { Ledger } = await load<typeof import('../gateway/store/ledger.js')>('store/ledger.js');
  const { UpstreamClient } = await load<typeof import('../gateway/upstream/client.js')>('upstream/client.js');
  wrap(Billing.prototype as unknown as Record<string, unknown>, 'admit', 'admission');
  wrap(UpstreamClient.prototype as unknown as Record<string, unknown>, 'send', 'upstream client called');
  const flush = Ledger.prototype.flush;
  Ledger.prototype.flush = function (this: InstanceType<typeof Ledger>) {
    const queue = (this as unknown as { queue: { kind: string }[] }).queue;
    if (queue.length > 0)
      mark(queue.some((q) => q.kind === 'settle') ? 'ledger commits the row' : 'ledger commits the pending row');
    flush.call(this);
    if (queue.length > 0) mark(queue.some((q) => q.kind === 'settle') ? 'row committed' : 'pending row committed');
  };
  const running = await serve({ dataDir, secrets: new MemorySecretStore(), host: '127.0.0.1', port: 0 });
  const { key } = await setupGateway(running.url, running.adminToken, mockUrl);
  return {
    url: running.url,
    key,
    close: async () => {
      await running.close(1000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const cleanup = new Cleanup();
cleanup.installHandlers();
// --pin: the bench's pinning (processes.ts), the mock on its core and this process (gateway, proxy, client) on the other.
const PIN = process.argv.includes('--pin');
if (PIN) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
const mock = await startMock(cleanup, PIN ? 0 : undefined);
upstreamOrigin = new URL(mock.url).origin;
const gateway = await gatewayAt(ROOT, mock.url);
const proxy = await listenReferenceProxy(mock.url);
const at = {
  mockUrl: mock.url,
  proxyUrl: proxy.url,
  upstreamKey: UPSTREAM_KEY,
  gatewayUrl: gateway.url,
  gatewayKey: gateway.key,
};

let dumped = 0;
const rows = PATH_IDS.map((id) => {
  const path = PATHS.find((p) => p.id === id);
  if (!path) throw new Error(`no path ${id}`);
  const req = requestFor(path, PHASE, at);
  return { id, req, pool: new Pool(new URL(req.url).origin, { connections: 1 }), rounds: [] as Map<string, number>[] };
});

/** One request; its marks, with the client's first body byte and end. */
async function once(row: (typeof rows)[number], keep: boolean): Promise<Map<string, number> | undefined> {
  const { pathname, search } = new URL(row.req.url);
  const m = new Map<string, number>();
  marks = m;
  const res = await row.pool.request({
    path: pathname + search,
    method: 'POST',
    headers: row.req.headers,
    body: row.req.body,
  });
  mark('client has the headers');
  for await (const chunk of res.body) {
    void chunk;
    mark("client's first body byte");
  }
  mark('client has the answer');
  if (res.statusCode >= 300) throw new Error(`${row.id} answered ${res.statusCode}`);
  // Let late marks (a commit after the answer, the probes) land before the next request.
  await new Promise((r) => setTimeout(r, 5));
  marks = undefined;
  if (TRACE) {
    // Time the loop spent outside every callback (in poll, or between phases) from the request's arrival to the
    // upstream write: the request path's waits, as opposed to its CPU.
    let depth = 0;
    let outside = 0;
    let last = 0;
    let on = false;
    for (const [t, n] of trace) {
      if (n === 'in') {
        on = true;
        depth = 1;
        last = t;
        continue;
      }
      if (!on) continue;
      if (n === 'upstream body sent') break;
      if (n.startsWith('before ')) {
        if (depth === 0) outside += t - last;
        depth++;
      } else if (n.startsWith('after ')) {
        depth = Math.max(0, depth - 1);
        if (depth === 0) last = t;
      }
    }
    m.set('time outside callbacks, in → upstream written', outside);
  }
  if (
    TRACE &&
    keep &&
    (process.env.DUMP_ROW
      ? row.id === process.env.DUMP_ROW && dumped++ === 20
      : (m.get('probe2: an immediate queued in one') ?? 0) - (m.get('upstream request written') ?? 0) > 0.8 &&
        !dumped++)
  ) {
    process.stderr.write(
      trace.map(([t, n, c]) => `${t.toFixed(3)} ${(c - trace[0]![2]).toFixed(3)} ${n}`).join('\n') + '\n----\n',
    );
  }
  trace.length = 0;
  return keep ? m : undefined;
}

for (const row of rows) for (let i = 0; i < 50; i++) await once(row, false);
const table = new Map<string, Map<string, string[]>>();
for (let round = 0; round < ROUNDS; round++) {
  for (const row of rows) {
    const got: Map<string, number>[] = [];
    for (let i = 0; i < REQUESTS; i++) got.push((await once(row, true))!);
    const names = new Set(got.flatMap((m) => [...m.keys()]));
    for (const name of names) {
      const values = got.map((m) => m.get(name)).filter((v): v is number => v !== undefined);
      const byName = table.get(name) ?? new Map<string, string[]>();
      table.set(name, byName);
      const figure = name.endsWith('(share)') ? values.length / got.length : median(values);
      byName.set(row.id, [...(byName.get(row.id) ?? []), figure.toFixed(2)]);
    }
  }
}

// Marks in the order they happen: by their first figure on the first row that has them.
const at0 = (n: string): number => Number([...table.get(n)!.values()][0]![0]);
const order = [...table.keys()].sort((a, b) => {
  const rowOf = (n: string): number => rows.findIndex((r) => table.get(n)!.has(r.id));
  const common = rows.find((r) => table.get(a)!.has(r.id) && table.get(b)!.has(r.id));
  if (common) return Number(table.get(a)!.get(common.id)![0]) - Number(table.get(b)!.get(common.id)![0]);
  return rowOf(a) - rowOf(b) || at0(a) - at0(b);
});
process.stdout.write(
  `Timeline at c=1, ${PHASE.id}, ${ROOT}: ms from the server having the request, median of ${REQUESTS} requests per round (rounds separated by /); load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n\n| mark | ${rows.map((r) => r.id).join(' | ')} |\n|---|${rows.map(() => '---:').join('|')}|\n` +
    order
      .map((n) => `| ${n} | ${rows.map((r) => table.get(n)!.get(r.id)?.join(' / ') ?? '–').join(' | ')} |`)
      .join('\n') +
    '\n',
);

for (const r of rows) await r.pool.close();
await proxy.stop();
await gateway.close();
await cleanup.runAll();
process.exit(0);
