/**
 * The soak (docs/reliability.md): `tollgate serve` as a child process under mixed load with faults
 * for a bounded time. Workers send requests on all four client protocols through the official
 * SDKs, streaming and not, to healthy lines and to lines that drop, garble, stall or answer 5xx,
 * and hang up at random now and then. Every second the gateway's resident memory and open
 * descriptors are sampled (from /proc, so Linux only) and the latency of the healthy requests is
 * recorded. `npm run soak -- --minutes 5` prints the figures; test/soak/soak.test.ts runs a short
 * form in CI.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { askWith, PROTOCOLS, type Protocol } from '../helpers/clients.js';
import { spawnGateway, tempDataDir, waitFor, type ChildGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { rng } from '../helpers/seeded.js';

const KEY_ENV = 'TOLLGATE_TEST_UPSTREAM_KEY';

/** A model per upstream protocol and behaviour: the healthy ones carry most of the load. */
const LINES: { protocol: Protocol; model: string; scenario: string; healthy: boolean }[] = [
  { protocol: 'openai-chat', model: 'gpt-4.1-mini', scenario: 'words=60,chunk-delay=1', healthy: true },
  { protocol: 'anthropic', model: 'claude-haiku-4-5', scenario: 'words=60,chunk-delay=1', healthy: true },
  { protocol: 'openai-responses', model: 'gpt-5-mini', scenario: 'words=60,chunk-delay=1', healthy: true },
  { protocol: 'gemini', model: 'gemini-2.5-flash', scenario: 'words=60,chunk-delay=1', healthy: true },
  { protocol: 'openai-chat', model: 'gpt-4.1', scenario: 'drop-after=4,words=30', healthy: false },
  { protocol: 'anthropic', model: 'claude-sonnet-4-6', scenario: 'malformed-at=4,words=30', healthy: false },
  { protocol: 'openai-responses', model: 'gpt-5', scenario: 'status=500', healthy: false },
  { protocol: 'gemini', model: 'gemini-2.5-pro', scenario: 'chunk-delay=2000,words=30', healthy: false },
];

export interface SoakOptions {
  durationMs: number;
  workers: number;
  seed: number;
  /** Called with each second's sample, for a progress line. */
  onSample?: (s: Sample) => void;
}

export interface Sample {
  atMs: number;
  rssMb: number;
  fds: number;
  requests: number;
}

export interface SoakResult {
  samples: Sample[];
  requests: number;
  failures: number;
  aborted: number;
  /** Healthy requests' latency by quarter of the run: median and 95th percentile, in ms. */
  latency: { p50: number; p95: number; n: number }[];
  /** Open descriptors before the load and once it has stopped and idle connections closed. */
  fdsBefore: number;
  fdsAfter: number;
  doctorOk: boolean;
  heldMicro: number;
}

function procStatus(pid: number): { rssMb: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(rssKb / 102.4) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function soak(opts: SoakOptions): Promise<SoakResult> {
  process.env[KEY_ENV] = 'upstream-secret';
  const mock: MockUpstream = await startMockUpstream();
  const dataDir = tempDataDir();
  let gw: ChildGateway | undefined;
  try {
    gw = await spawnGateway(dataDir, { ...process.env, [KEY_ENV]: 'upstream-secret' });
    const pid = gw.child.pid!;
    await gw.admin.topup(1000);
    for (const [i, l] of LINES.entries()) {
      const baseUrl = l.protocol.startsWith('openai')
        ? scenarioBase(mock, l.scenario)
        : scenarioOrigin(mock, l.scenario);
      await gw.admin.line({
        name: `soak-${i}`,
        protocol: l.protocol,
        baseUrl,
        models: [l.model],
        apiKeyEnv: KEY_ENV,
        timeouts: { firstByteMs: 1000, idleMs: 500, totalMs: 10_000 },
      });
    }
    const key = await gw.admin.key('soak');
    const r = rng(opts.seed);
    // A warm-up first: what the gateway opens once and keeps (the token-count worker, the
    // Responses and body stores, pooled upstream sockets) is then counted in the baseline, so
    // only descriptors that keep growing with the load count as a leak.
    let start = Date.now();
    let until = Math.min(2000, opts.durationMs / 4);
    const latencies: { atMs: number; ms: number }[] = [];
    let requests = 0;
    let failures = 0;
    let aborted = 0;
    const samples: Sample[] = [];
    const sampler = setInterval(() => {
      const s = { atMs: Date.now() - start, ...procStatus(pid), requests };
      samples.push(s);
      opts.onSample?.(s);
    }, 1000);
    const worker = async (): Promise<void> => {
      while (Date.now() - start < until) {
        const line = r.chance(0.75) ? r.pick(LINES.filter((l) => l.healthy)) : r.pick(LINES.filter((l) => !l.healthy));
        const client = r.pick(PROTOCOLS);
        const stream = r.chance(0.6);
        const hangUp = r.chance(0.1);
        const ac = new AbortController();
        const timer = hangUp ? setTimeout(() => ac.abort(), r.int(5, 150)) : undefined;
        const t0 = performance.now();
        requests++;
        try {
          await askWith(client, gw!.url, key, {
            model: line.model,
            stream,
            prompt: `soak ${requests}`,
            signal: ac.signal,
          });
          if (line.healthy && !ac.signal.aborted)
            latencies.push({ atMs: Date.now() - start, ms: performance.now() - t0 });
        } catch {
          if (ac.signal.aborted) aborted++;
          else failures++;
        } finally {
          clearTimeout(timer);
        }
      }
    };
    await Promise.all(Array.from({ length: opts.workers }, worker));
    await waitFor(() => mock.inFlight() === 0, 'the warm-up requests to end', 30_000);
    const fdsBefore = procStatus(pid).fds;
    start = Date.now();
    until = opts.durationMs;
    requests = 0;
    failures = 0;
    aborted = 0;
    latencies.length = 0;
    samples.length = 0;
    await Promise.all(Array.from({ length: opts.workers }, worker));
    clearInterval(sampler);
    // Let hung-up requests finish on the gateway's side and idle keep-alive sockets time out.
    await waitFor(() => mock.inFlight() === 0, 'the upstream requests to end', 30_000);
    // Idle keep-alive connections close within seconds (the clients' and the mock's timers): a
    // descriptor still open after that is a leak.
    const fdSlack = 4;
    await waitFor(() => procStatus(pid).fds <= fdsBefore + fdSlack, 'open descriptors to come back', 10_000).catch(
      () => undefined,
    );
    const quarters = [0, 1, 2, 3].map((q) => {
      const ms = latencies
        .filter((l) => l.atMs >= (q * opts.durationMs) / 4 && l.atMs < ((q + 1) * opts.durationMs) / 4)
        .map((l) => l.ms)
        .sort((a, b) => a - b);
      return { p50: Math.round(percentile(ms, 50)), p95: Math.round(percentile(ms, 95)), n: ms.length };
    });
    const wallet = await gw.admin.wallet();
    const doctor = await gw.admin.doctor();
    const fdsAfter = procStatus(pid).fds;
    return {
      samples,
      requests,
      failures,
      aborted,
      latency: quarters,
      fdsBefore,
      fdsAfter,
      doctorOk: doctor.ok,
      heldMicro: wallet.heldMicro,
    };
  } finally {
    gw?.child.kill('SIGTERM');
    await gw?.exited;
    await mock.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Median of a list of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? fallback : Number(process.argv[i + 1]);
  };
  const minutes = arg('minutes', 5);
  const result = await soak({
    durationMs: minutes * 60_000,
    workers: arg('workers', 8),
    seed: arg('seed', 20261124),
    onSample: (s) => {
      if (Math.round(s.atMs / 1000) % 15 === 0)
        console.log(`${Math.round(s.atMs / 1000)} s  rss ${s.rssMb} MB  fds ${s.fds}  requests ${s.requests}`);
    },
  });
  console.log(JSON.stringify({ ...result, samples: undefined }, null, 2));
}
