/**
 * The timeline of streams under load: where a stream's time to first byte goes at c=1 and at c=16, for the
 * gateway (a build's `dist/`, set up as the bench does) and the bare proxy, both in this process on core 1, the
 * mock upstream and the streaming client as children on core 0 (the bench's pinning). The client (this file
 * with `--client`) runs the bench's streaming load (`stream-client.ts`'s loop) and tags each request with an
 * `x-timeline-id` header; it reports when it sent each request and when the first body byte came, in wall-clock
 * time (`performance.timeOrigin + now()`), which this process uses too.
 *
 * In this process each request's marks are joined to it through an AsyncLocalStorage entered whenever its
 * `IncomingMessage` emits (the route handler runs from the body's `end`), so undici's upstream request, created
 * inside the handler, finds its client request; undici's later marks (headers written, the upstream's headers,
 * its first body bytes) follow the undici request. The first write of the answer is a wrapper on the response.
 *
 * Steps (ms, per request, then the median and p90 over a round's requests):
 *   queue in     the client's send → the server parses the request (the loop busy elsewhere, the network)
 *   to upstream  the server has it → undici wrote the upstream request's headers
 *   upstream     the upstream request written → the upstream's first body bytes read
 *   out          the upstream's first body bytes → the first write of the answer (headers and first event)
 *   to client    that write → the client's first body byte
 * And for the whole cell: the event loop's utilisation and this process's CPU per stream.
 *
 * Usage: node --import tsx bench/stream-timeline.ts [--gateway-dir DIR] [--paths a,b] [--concurrency 1,16]
 *   [--duration S] [--rounds R]
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, execFileSync } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { PATHS, PHASES, requestFor, type BenchRequest } from './matrix.js';
import { Cleanup, startMock } from './processes.js';
import { listenReferenceProxy } from './reference-proxy.js';
import { setupGateway, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './setup.js';

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}
const wall = (): number => performance.timeOrigin + performance.now();

interface ClientSpec {
  req: BenchRequest;
  connections: number;
  durationS: number;
}
/** One stream as the client saw it: [id, sent, first body byte], wall-clock ms. */
type ClientRow = [number, number, number];

if (process.argv.includes('--client')) {
  // The client: the streaming load of bench/stream-client.ts, with an id on each request.
  const spec = JSON.parse(process.env.TIMELINE_CLIENT!) as ClientSpec;
  const url = new URL(spec.req.url);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  const rows: ClientRow[] = [];
  let next = 0;
  const deadline = performance.now() + spec.durationS * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const id = next++;
      const sent = wall();
      const res = await pool.request({
        path: url.pathname,
        method: 'POST',
        headers: { ...spec.req.headers, 'x-timeline-id': String(id) },
        body: spec.req.body,
      });
      let first = 0;
      let text = '';
      for await (const chunk of res.body) {
        if (first === 0) first = wall();
        text += (chunk as Buffer).toString('latin1');
      }
      if (res.statusCode !== 200 || !text.includes(spec.req.terminator))
        throw new Error(`stream ${id}: status ${res.statusCode}, ${text.slice(-200)}`);
      rows.push([id, sent, first]);
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));
  await pool.close();
  process.stdout.write(JSON.stringify(rows));
  process.exit(0);
}

const ROOT = flag('--gateway-dir', fileURLToPath(new URL('..', import.meta.url))).replace(/\/$/, '');
const PATH_IDS = flag('--paths', 'proxy-chat,chat>openai-chat,messages>openai-chat').split(',');
const CONCURRENCY = flag('--concurrency', '1,16').split(',').map(Number);
const DURATION = Number(flag('--duration', '3'));
const ROUNDS = Number(flag('--rounds', '2'));
const PHASE = PHASES.find((p) => p.id === 'stream-c16')!;

process.env.TOLLGATE_CATALOGUE_DATE ??= '2026-11-24';
process.env[UPSTREAM_KEY_ENV] = UPSTREAM_KEY;

/** The server-side marks of one tagged request, wall-clock ms. */
interface Marks {
  in: number;
  upstreamWritten?: number;
  upstreamHeaders?: number;
  upstreamFirstBytes?: number;
  firstWrite?: number;
  /** This process's CPU time (ms) at each mark of the same name: the work done between two marks, this
   * request's and others', whatever other processes took of the core meanwhile. */
  cpu: Record<string, number>;
}
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const byId = new Map<number, Marks>();
const als = new AsyncLocalStorage<Marks>();
const ofRequest = new WeakMap<object, Marks>();
const ofUndici = new WeakMap<object, Marks>();
let upstreamOrigin = '';

subscribe('http.server.request.start', (m) => {
  const { request, response } = m as { request: IncomingMessage; response: ServerResponse };
  const id = request.headers['x-timeline-id'];
  if (typeof id !== 'string') return;
  const marks: Marks = { in: wall(), cpu: { in: cpuMs() } };
  byId.set(Number(id), marks);
  ofRequest.set(request, marks);
  // The rest of this turn (the server's 'request' listeners, and what they queue) in the request's context.
  als.enterWith(marks);
  const write = response.write;
  response.write = function (this: ServerResponse, ...args: unknown[]) {
    if (marks.firstWrite === undefined) {
      marks.firstWrite = wall();
      marks.cpu.firstWrite = cpuMs();
    }
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof response.write;
});
// The request's events (its body's data and end, from which the route handler runs) in its own context.
const emit = IncomingMessage.prototype.emit;
IncomingMessage.prototype.emit = function (this: IncomingMessage, ...args: Parameters<typeof emit>) {
  const marks = ofRequest.get(this);
  return marks ? als.run(marks, () => emit.apply(this, args)) : emit.apply(this, args);
} as typeof emit;
const upstreamOf = (m: unknown): Marks | undefined => ofUndici.get((m as { request: object }).request);
subscribe('undici:request:create', (m) => {
  const { request } = m as { request: { origin?: unknown } };
  const marks = als.getStore();
  if (marks && String(request.origin).startsWith(upstreamOrigin)) ofUndici.set(request, marks);
});
subscribe('undici:client:sendHeaders', (m) => {
  const marks = upstreamOf(m);
  if (marks && marks.upstreamWritten === undefined) {
    marks.upstreamWritten = wall();
    marks.cpu.upstreamWritten = cpuMs();
  }
});
subscribe('undici:request:headers', (m) => {
  const marks = upstreamOf(m);
  if (marks && marks.upstreamHeaders === undefined) {
    marks.upstreamHeaders = wall();
    marks.cpu.upstreamHeaders = cpuMs();
  }
});
subscribe('undici:request:bodyChunkReceived', (m) => {
  const marks = upstreamOf(m);
  if (marks && marks.upstreamFirstBytes === undefined) {
    marks.upstreamFirstBytes = wall();
    marks.cpu.upstreamFirstBytes = cpuMs();
  }
});

async function gatewayAt(root: string, mockUrl: string): Promise<{ url: string; key: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'tollgate-stream-timeline-'));
  const load = async <T>(path: string): Promise<T> =>
    (await import(pathToFileURL(`${root}/dist/gateway/${path}`).href)) as T;
  const { serve } = await load<typeof import('../gateway/serve.js')>('serve.js');
  const { MemorySecretStore } = await load<typeof import('../gateway/store/secrets.js')>('store/secrets.js');
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

/** Runs the client child for one cell; its rows. */
function runClient(spec: ClientSpec): Promise<ClientRow[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'taskset',
      ['-c', '0', process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), '--client'],
      { env: { ...process.env, TIMELINE_CLIENT: JSON.stringify(spec) }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ClientRow[]) : reject(new Error(`client ${code}`)),
    );
  });
}

const cleanup = new Cleanup();
cleanup.installHandlers();
execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
const mock = await startMock(cleanup, 0);
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

const STEPS = [
  'TTFB (client)',
  'queue in',
  'to upstream',
  'upstream',
  'out',
  'to client',
  'server: in → first write',
  'CPU: to upstream',
  'CPU: upstream',
  'CPU: out',
  'CPU: in → first write',
] as const;
const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? NaN;
};
const lines: string[] = [];
for (let round = 0; round <= ROUNDS; round++) {
  for (const c of CONCURRENCY) {
    for (const id of PATH_IDS) {
      const path = PATHS.find((p) => p.id === id);
      if (!path) throw new Error(`no path ${id}`);
      const req = requestFor(path, PHASE, at);
      byId.clear();
      const elu0 = performance.eventLoopUtilization();
      const cpu0 = process.cpuUsage();
      const rows = await runClient({ req, connections: c, durationS: round === 0 ? 1 : DURATION });
      const elu = performance.eventLoopUtilization(elu0);
      const cpu = process.cpuUsage(cpu0);
      if (round === 0) continue; // warm-up
      const steps = new Map<string, number[]>(STEPS.map((s) => [s, []]));
      // Streams whose whole life was inside the cell: the first and last few overlap its edges.
      for (const [rid, sent, first] of rows.slice(c * 2, rows.length - c)) {
        const m = byId.get(rid);
        if (!m?.upstreamWritten || !m.upstreamFirstBytes || !m.firstWrite) continue;
        steps.get('TTFB (client)')!.push(first - sent);
        steps.get('queue in')!.push(m.in - sent);
        steps.get('to upstream')!.push(m.upstreamWritten - m.in);
        steps.get('upstream')!.push(m.upstreamFirstBytes - m.upstreamWritten);
        steps.get('out')!.push(m.firstWrite - m.upstreamFirstBytes);
        steps.get('to client')!.push(first - m.firstWrite);
        steps.get('server: in → first write')!.push(m.firstWrite - m.in);
        const c = m.cpu as Required<Marks>['cpu'] &
          Record<'in' | 'upstreamWritten' | 'upstreamFirstBytes' | 'firstWrite', number>;
        steps.get('CPU: to upstream')!.push(c.upstreamWritten - c.in);
        steps.get('CPU: upstream')!.push(c.upstreamFirstBytes - c.upstreamWritten);
        steps.get('CPU: out')!.push(c.firstWrite - c.upstreamFirstBytes);
        steps.get('CPU: in → first write')!.push(c.firstWrite - c.in);
      }
      const n = steps.get('TTFB (client)')!.length;
      lines.push(
        `| ${round} | c=${c} | ${id} | ${n} | ` +
          STEPS.map((s) => `${q(steps.get(s)!, 0.5).toFixed(2)} / ${q(steps.get(s)!, 0.9).toFixed(2)}`).join(' | ') +
          ` | ${(elu.utilization * 100).toFixed(0)} % | ${((cpu.user + cpu.system) / rows.length).toFixed(0)} |`,
      );
      process.stderr.write(lines.at(-1)! + '\n');
    }
  }
}
process.stdout.write(
  `Streams under load, ${ROOT}: ms per step, p50 / p90 over a cell's streams; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(
      ' ',
    )}\n\n| round | c | path | streams | ${STEPS.join(' | ')} | loop busy | CPU µs / stream |\n|---|---|---|---:|${STEPS.map(() => '---:').join('|')}|---:|---:|\n` +
    lines.join('\n') +
    '\n',
);
await proxy.stop();
await gateway.close();
await cleanup.runAll();
process.exit(0);
