/**
 * What each in-flight request holds across the upstream wait: requests parked at a mock upstream that answers
 * after several seconds, N/2 of them and then N, the gateway's heap after a full collection in each case; the
 * difference divided by N/2 is what one parked request holds (what the first requests of a process load or compile
 * once is in both, so it drops out), and the two heap snapshots' difference says which kinds of object make it. Objects alive across a
 * real upstream's wait outlive two scavenges and are promoted to the old space (docs/performance.md, "Peak under
 * load"), so this is what a request adds to the old space while it waits.
 *
 * The gateway (`tollgate serve` of a build's `dist/`, set up as the bench does) runs in this process; the mock and
 * the client (undici, one connection per request) are child processes, so neither's objects are counted.
 *
 * Usage: node --expose-gc --import tsx bench/in-flight-memory.ts [--gateway-dir DIR] [--requests N] [--paths a,b] [--top K] [--keep-snapshot PREFIX]
 */
import { spawn } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { PATHS, PHASES, requestFor, SCENARIOS, type BenchRequest } from './matrix.js';
import { Cleanup, REPO, startMock } from './processes.js';
import { listenReferenceProxy } from './reference-proxy.js';
import { setupGateway, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './setup.js';

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}
const N = Number(flag('--requests', '240'));
const TOP = Number(flag('--top', '25'));
const ROOT = flag('--gateway-dir', new URL('..', import.meta.url).pathname).replace(/\/$/, '');
/** --keep-snapshot PREFIX: the parked heap's snapshot is kept as PREFIX-<path>.heapsnapshot (for a retainers view). */
const KEEP = process.argv.includes('--keep-snapshot') ? flag('--keep-snapshot', '') : undefined;
const PATH_IDS = flag('--paths', 'proxy-chat,chat>openai-chat,messages>openai-chat').split(',');
/** Long enough for N requests to arrive, the snapshot to be taken and written. */
const PARK_MS = 12_000;

if (!globalThis.gc) throw new Error('run with node --expose-gc');
process.env.TOLLGATE_CATALOGUE_DATE ??= '2026-11-24';
process.env[UPSTREAM_KEY_ENV] = UPSTREAM_KEY;
// The "slow" lines wait PARK_MS before answering: the requests sent to them park there.
(SCENARIOS as Record<string, string>).slow = `words=20,delay=${PARK_MS}`;

const cleanup = new Cleanup();
cleanup.installHandlers();
const mock = await startMock(cleanup, undefined);
const upstreamOrigin = new URL(mock.url).origin;
let arrived = 0;
subscribe('undici:client:sendHeaders', (m) => {
  if (String((m as { request: { origin?: unknown } }).request.origin).startsWith(upstreamOrigin)) arrived++;
});

const dataDir = mkdtempSync(join(os.tmpdir(), 'tollgate-in-flight-'));
const { serve } = (await import(
  pathToFileURL(`${ROOT}/dist/gateway/serve.js`).href
)) as typeof import('../gateway/serve.js');
const { MemorySecretStore } = (await import(
  pathToFileURL(`${ROOT}/dist/gateway/store/secrets.js`).href
)) as typeof import('../gateway/store/secrets.js');
const running = await serve({ dataDir, secrets: new MemorySecretStore(), host: '127.0.0.1', port: 0 });
const { key } = await setupGateway(running.url, running.adminToken, mock.url);
// The bare proxy (bench/reference-proxy.ts) in the same process: what any Node proxy holds per parked request. Its
// pool has 128 connections, so keep --requests at or under 128 when it is measured.
const proxy = await listenReferenceProxy(mock.url);
const at = {
  mockUrl: mock.url,
  proxyUrl: proxy.url,
  upstreamKey: UPSTREAM_KEY,
  gatewayUrl: running.url,
  gatewayKey: key,
};

/** The client, in a process of its own: sends `n` copies of `req` at once (one connection each) and waits for them. */
function client(req: BenchRequest, n: number): Promise<void> {
  const script = `
    import { request, Agent } from ${JSON.stringify(pathToFileURL(join(REPO, 'node_modules/undici/index.js')).href)};
    const [url, headers, body, n] = JSON.parse(process.argv[1]);
    const dispatcher = new Agent({ connections: n });
    const one = async () => {
      const res = await request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body, dispatcher });
      await res.body.text();
      if (res.statusCode >= 300) throw new Error(url + ' answered ' + res.statusCode);
    };
    await Promise.all(Array.from({ length: n }, one));
    await dispatcher.close();`;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify([req.url, req.headers, req.body, n])],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited ${code}`)))),
  );
}

/** Self size and count of the heap's objects by kind (`type:name`), from a snapshot. */
function byKind(keep?: string): Map<string, { size: number; count: number }> {
  const file = keep ?? join(dataDir, `heap-${Date.now()}.heapsnapshot`);
  v8.writeHeapSnapshot(file);
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  if (!keep) rmSync(file);
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const out = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const name =
      type === 'object' || type === 'closure' || type === 'native' ? snap.strings[snap.nodes[i + nameAt]!]! : '';
    const kind = `${type}${name ? ` ${name.slice(0, 60)}` : ''}`;
    const k = out.get(kind) ?? { size: 0, count: 0 };
    k.size += snap.nodes[i + sizeAt]!;
    k.count++;
    out.set(kind, k);
  }
  return out;
}

function heapUsed(): number {
  globalThis.gc!();
  globalThis.gc!();
  return process.memoryUsage().heapUsed;
}

const report: string[] = [];
for (const id of PATH_IDS) {
  const path = PATHS.find((p) => p.id === id);
  if (!path) throw new Error(`no path ${id}`);
  // Warm-up on the fast line (JIT, pools, the ledger's pages), then the same request to the slow line.
  const warm = requestFor(
    path,
    PHASES.find((p) => p.id === 'c16')!,
    at,
  );
  // Two batches of 200 at once (a batch is 200 connections).
  for (let batch = 0; batch < 2; batch++) await client(warm, 200);
  const slow = requestFor(
    path,
    PHASES.find((p) => p.id === 'c16-delay50')!,
    at,
  );
  // The proxy's pool has 128 connections: more requests would wait in it rather than at the upstream.
  const n = path.via === 'proxy' ? Math.min(N, 120) : N;
  /** `count` requests parked at once: the heap after a full collection, and its snapshot by kind. */
  const park = async (count: number, snapshot?: string) => {
    arrived = 0;
    const done = client(slow, count);
    while (arrived < count) await new Promise((r) => setTimeout(r, 50));
    // Let every request's check-phase work (the pending rows' commit) run.
    await new Promise((r) => setTimeout(r, 300));
    const heap = heapUsed();
    const kinds = byKind(snapshot);
    await done;
    return { heap, kinds };
  };
  // Twice, with half and all of the requests: the difference is what the other half holds, without what the
  // first parked requests of a process load or compile once.
  const half = await park(n / 2);
  const all = await park(n, KEEP ? `${KEEP}-${id.replace(/[^a-z-]/g, '_')}.heapsnapshot` : undefined);
  const per = n / 2;
  const diff = [...all.kinds].map(([kind, p]) => {
    const i = half.kinds.get(kind) ?? { size: 0, count: 0 };
    return { kind, size: p.size - i.size, count: p.count - i.count };
  });
  diff.sort((a, b) => b.size - a.size);
  report.push(
    `### ${id}: ${n / 2} and ${n} requests parked at the upstream\n\nheap used after a full collection: ${(half.heap / 1e6).toFixed(2)} and ${(all.heap / 1e6).toFixed(2)} MB: ${((all.heap - half.heap) / per / 1024).toFixed(2)} KB a request; in the snapshots (their objects' own sizes, buffers' bytes included): **${(diff.reduce((n, d) => n + d.size, 0) / per / 1024).toFixed(2)} KB a request**\n\n| kind (snapshot) | bytes a request | objects a request |\n|---|---:|---:|\n` +
      diff
        .slice(0, TOP)
        .map(
          (d) => `| ${d.kind.replace(/\|/g, '\\|')} | ${(d.size / per).toFixed(0)} | ${(d.count / per).toFixed(2)} |`,
        )
        .join('\n') +
      '\n',
  );
}
process.stdout.write(
  `In-flight memory, ${ROOT}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n\n${report.join('\n')}`,
);

await proxy.stop();
await running.close(1000);
await cleanup.runAll();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
