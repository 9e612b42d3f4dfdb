/**
 * CPU per request of the gateway and of a bare Fastify + undici proxy, measured in one process with
 * `process.cpuUsage()`: a figure that other processes' load moves far less than a whole-bench run's on a shared
 * machine (their CPU is not counted, only what they do to this process's caches and clock). The mock upstream
 * runs as a child process; the gateway (`tollgate serve` of a build's dist/, set up through its admin API as the
 * bench does), the proxy and the client run here. The client's own cost is taken out by measuring it alone
 * against the mock (the "direct" rows) and subtracting it from each row of the same wire format, so what is
 * left is what the process in the middle spends, as the bench's `/proc` figure is. The rows run in rounds,
 * interleaved; the table gives the median round, and each path as a ratio to the proxy's median.
 *
 * With `--base-dir DIR`, a second gateway built from another checkout (its `dist/`) runs in the same process and
 * its rows join the same rounds: a before/after of a change measured under the same load, row by row, which
 * back-to-back runs on a shared machine cannot give.
 *
 * `--paths a,b` picks the gateway rows (ids from `bench/matrix.ts` PATHS, e.g. `responses>anthropic`); the direct
 * rows their wire formats need and the proxy's row come with them. `--phase ID` picks the phase whose requests are
 * sent (`c16`, or `stream-c16` for streams; the concurrency stays `--concurrency`'s).
 *
 * With `--profile-dir DIR`, each row of each round is profiled on its own (the inspector's CPU profiler, started
 * before the row's requests and stopped after them, every 250 µs) and written to `DIR/<row>.r<round>.cpuprofile`
 * beside `DIR/rows.json` (the requests per row): `bench/profile-rows.ts` reduces them to µs per request, so a
 * gateway row's frames read against the proxy's row of the same rounds. The profiler slows every row alike.
 *
 * Usage: node --expose-gc --import tsx bench/request-cost.ts [--gateway-dir DIR] [--base-dir DIR] [--requests N] [--concurrency C] [--rounds R] [--paths IDS] [--phase ID] [--profile-dir DIR]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { PATHS, PHASES, requestFor, type BenchRequest } from './matrix.js';
import { Cleanup, startMock } from './processes.js';
import { listenReferenceProxy } from './reference-proxy.js';
import { setupGateway, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './setup.js';
import { median } from './stats.js';

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}
const REQUESTS = Number(flag('--requests', '4000'));
const CONCURRENCY = Number(flag('--concurrency', '16'));
const ROUNDS = Number(flag('--rounds', '5'));
const ROOT = flag('--gateway-dir', new URL('..', import.meta.url).pathname).replace(/\/$/, '');
const BASE = process.argv.includes('--base-dir') ? flag('--base-dir', '').replace(/\/$/, '') : undefined;
const PROFILE_DIR = process.argv.includes('--profile-dir') ? flag('--profile-dir', '') : undefined;

process.env.TOLLGATE_CATALOGUE_DATE ??= '2026-11-24';
process.env[UPSTREAM_KEY_ENV] = UPSTREAM_KEY;

/** `n` requests, `CONCURRENCY` at a time, over keep-alive connections; fails on any non-2xx. */
async function load(pool: Pool, req: BenchRequest, n: number): Promise<void> {
  const { pathname, search } = new URL(req.url);
  let left = n;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const res = await pool.request({ path: pathname + search, method: 'POST', headers: req.headers, body: req.body });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${req.url} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const cleanup = new Cleanup();
cleanup.installHandlers();
const mock = await startMock(cleanup, undefined);
const dataDirs: string[] = [];

/** `tollgate serve` of the build in `root` (its dist/), on a fresh data dir, set up as the bench does. */
async function startGateway(root: string): Promise<{ url: string; key: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'tollgate-request-cost-'));
  dataDirs.push(dataDir);
  const { serve } = (await import(
    pathToFileURL(`${root}/dist/gateway/serve.js`).href
  )) as typeof import('../gateway/serve.js');
  const { MemorySecretStore } = (await import(
    pathToFileURL(`${root}/dist/gateway/store/secrets.js`).href
  )) as typeof import('../gateway/store/secrets.js');
  const running = await serve({ dataDir, secrets: new MemorySecretStore(), host: '127.0.0.1', port: 0 });
  const { key } = await setupGateway(running.url, running.adminToken, mock.url);
  return { url: running.url, key, close: () => running.close(1000) };
}

const gateway = await startGateway(ROOT);
const base = BASE === undefined ? undefined : await startGateway(BASE);
const proxy = await listenReferenceProxy(mock.url);
const at = {
  mockUrl: mock.url,
  proxyUrl: proxy.url,
  upstreamKey: UPSTREAM_KEY,
  gatewayUrl: gateway.url,
  gatewayKey: gateway.key,
};
const phase = PHASES.find((p) => p.id === flag('--phase', 'c16'))!;
const GATEWAY_ROWS = flag('--paths', 'chat>openai-chat,messages>openai-chat').split(',');
// Each gateway row's direct row (its client alone) first, and the proxy's row after the chat client's.
const ROWS = [
  ...new Set([
    'direct-chat',
    'proxy-chat',
    ...GATEWAY_ROWS.flatMap((id) => [PATHS.find((p) => p.id === id)!.baseline, id]),
  ]),
];
// The other build's rows, sent to its gateway: the same requests, each beside this build's, in the same rounds.
const rows = ROWS.flatMap((id) => [
  { id, at },
  ...(base && GATEWAY_ROWS.includes(id)
    ? [{ id: `base ${id}`, at: { ...at, gatewayUrl: base.url, gatewayKey: base.key } }]
    : []),
]).map(({ id, at: to }) => {
  const path = PATHS.find((p) => p.id === id.replace(/^base /, ''))!;
  const req = requestFor(path, phase, to);
  return { id, path, req, pool: new Pool(new URL(req.url).origin, { connections: CONCURRENCY }), us: [] as number[] };
});

// Warm-up: the JIT, the pools, the ledger's first pages.
for (const r of rows) await load(r.pool, r.req, Math.min(2_000, REQUESTS));
// Each pair (this build's row, the base's) runs in one order in even rounds and the other in odd ones: the row
// that runs second was seen to read about 10 % lower (a path left unchanged read 0.90 against its own base).
const swapped = rows.map((r, i) =>
  rows[i + 1]?.id === `base ${r.id}` ? rows[i + 1]! : r.id.startsWith('base ') ? rows[i - 1]! : r,
);
const profiler = PROFILE_DIR === undefined ? undefined : new Session();
if (profiler) {
  mkdirSync(PROFILE_DIR!, { recursive: true });
  writeFileSync(`${PROFILE_DIR}/rows.json`, JSON.stringify({ requests: REQUESTS, rows: rows.map((r) => r.id) }));
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 250 });
}
for (let round = 0; round < ROUNDS; round++) {
  for (const r of round % 2 === 0 ? rows : swapped) {
    globalThis.gc?.();
    if (profiler) await profiler.post('Profiler.start');
    const cpu0 = process.cpuUsage();
    await load(r.pool, r.req, REQUESTS);
    const cpu = process.cpuUsage(cpu0);
    r.us.push((cpu.user + cpu.system) / REQUESTS);
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(
        `${PROFILE_DIR}/${r.id.replace(/[^a-z0-9-]+/gi, '_')}.r${round}.cpuprofile`,
        JSON.stringify(profile),
      );
    }
  }
}
profiler?.disconnect();

const direct = (wire: string): number => median(rows.find((r) => r.path.kind === 'direct' && r.path.wire === wire)!.us);
const net = (r: (typeof rows)[number]): number => median(r.us) - direct(r.path.wire);
const proxyNet = net(rows.find((r) => r.id === 'proxy-chat')!);
const lines = rows.map((r) => {
  const own = r.path.kind === 'direct' ? '–' : net(r).toFixed(0);
  const ratio = r.path.kind === 'direct' ? '–' : `${(net(r) / proxyNet).toFixed(2)} ×`;
  return `| ${r.id} | ${median(r.us).toFixed(0)} | ${Math.min(...r.us).toFixed(0)}–${Math.max(...r.us).toFixed(0)} | ${own} | ${ratio} |`;
});
// Each round's pair (this build's row and the base's) ran back to back: the ratio of the two within a round
// moves less with the machine's load than either figure does.
const paired = base
  ? GATEWAY_ROWS.map((id) => {
      const mine = rows.find((r) => r.id === id)!;
      const theirs = rows.find((r) => r.id === `base ${id}`)!;
      const d = direct(mine.path.wire);
      const ratios = mine.us.map((us, i) => (us - d) / (theirs.us[i]! - d));
      return `| ${id} | ${median(ratios).toFixed(3)} | ${ratios.map((x) => x.toFixed(2)).join(', ')} |`;
    })
  : [];
process.stdout.write(
  `CPU per request in process, ${ROOT}${BASE ? ` (base rows: ${BASE})` : ''}, c=${CONCURRENCY}, ${ROUNDS} rounds of ${REQUESTS} requests per row, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n\n` +
    '| row | process CPU µs/req (median round) | rounds | less the client (direct row) | × proxy |\n|---|---:|---:|---:|---:|\n' +
    lines.join('\n') +
    '\n' +
    (base
      ? '\nThis build ÷ base, less the client, round by round:\n\n| row | median | rounds |\n|---|---:|---|\n' +
        paired.join('\n') +
        '\n'
      : ''),
);

for (const r of rows) await r.pool.close();
await proxy.stop();
await gateway.close();
await base?.close();
await cleanup.runAll();
for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
process.exit(0);
