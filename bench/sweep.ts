/**
 * Every chosen path under every chosen phase: a probe request per path (a gateway 404 marks the path "not
 * available" in this build), a warm-up, then the cells phase by phase. A cell disturbed by other processes
 * (a shared box, a CI runner) is measured again while the time budget allows; the least disturbed attempt is
 * kept, and failures of every attempt still count.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runCell, unavailableCell, type CellContext, type CellResult } from './cell.js';
import type { LoadGenerator } from './load/index.js';
import { PHASES, requestFor, type BenchPath, type BenchRequest, type Endpoints, type Phase } from './matrix.js';
import { runStreams } from './stream-client.js';

/** A cell during which other processes used more of the machine than this is measured again… */
const BUSY_PCT = 15;
const MAX_ATTEMPTS = 3;

export interface SweepOptions {
  warmupSeconds: number;
  retryBusy: boolean;
  /** …as long as the run can still end by this time (ms since the epoch). */
  deadline: number;
  log(line: string): void;
}

export interface Sweep {
  cells: CellResult[];
  /** Failed requests outside the reported cells: warm-ups and discarded attempts. */
  unreportedFailures: number;
}

/** One request per path before any load: a 404 means the gateway lacks that inbound route in this build. */
async function probe(path: BenchPath, at: Endpoints): Promise<string | undefined> {
  const req = requestFor(
    path,
    PHASES.find((p) => p.id === 'c16')!,
    at,
  );
  const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.ok) return undefined;
  if (res.status === 404 && path.via === 'gateway')
    return `POST ${new URL(req.url).pathname} answered 404 in this build`;
  throw new Error(`${path.label}: probe answered ${res.status}: ${text.slice(0, 300)}`);
}

async function warmUp(path: BenchPath, at: Endpoints, loadgen: LoadGenerator, seconds: number): Promise<number> {
  const fast = requestFor(
    path,
    PHASES.find((p) => p.id === 'c16')!,
    at,
  );
  const load = await loadgen.run({ ...fast, connections: 16, durationS: seconds });
  const stream = requestFor(
    path,
    PHASES.find((p) => p.stream)!,
    at,
  );
  const streams = await runStreams({ ...stream, connections: 16, durationS: Math.min(seconds, 0.5) });
  return load.non2xx + load.errors + streams.non2xx + streams.errors + streams.incomplete;
}

/** One sample of what a failing non-streaming cell answered, since load generators only count statuses. */
async function sampleFailure(req: BenchRequest): Promise<string> {
  try {
    const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body });
    return `e.g. status ${res.status}: ${(await res.text()).slice(0, 200)}`;
  } catch (err) {
    return `e.g. ${(err as Error).message}`;
  }
}

export function progress(path: BenchPath, phase: Phase, c: CellResult): string {
  if (!c.available) return `  ${phase.id.padEnd(12)} ${path.id.padEnd(22)} not available`;
  const lat = phase.stream
    ? `ttfb p50 ${c.ttfbMs?.p50.toFixed(2) ?? '–'} ms`
    : `p99 ${c.latencyMs?.p99.toFixed(2) ?? '–'} ms`;
  const cpu = c.gatewayCpuUs === undefined ? '' : `, ${c.gatewayCpuUs.toFixed(0)} µs CPU/req`;
  const bad = c.non2xx + c.errors + c.incomplete;
  return `  ${phase.id.padEnd(12)} ${path.id.padEnd(22)} ${c.rps.toFixed(0).padStart(6)} req/s, ${lat}${cpu}${bad ? `, ${bad} FAILED` : ''}`;
}

export async function sweep(
  paths: BenchPath[],
  phases: Phase[],
  at: Endpoints,
  ctx: CellContext,
  opts: SweepOptions,
): Promise<Sweep> {
  const unavailable = new Map<string, string>();
  let unreportedFailures = 0;
  for (const path of paths) {
    const why = await probe(path, at);
    if (why) {
      unavailable.set(path.id, why);
      opts.log(`bench: ${path.label}: not available (${why})`);
    } else {
      unreportedFailures += await warmUp(path, at, ctx.loadgen, opts.warmupSeconds);
    }
  }

  const cells: CellResult[] = [];
  const total = phases.length * paths.length;
  const canRetry = (): boolean =>
    opts.retryBusy && Date.now() + ((total - cells.length) * (ctx.durationS + 0.4) + 1) * 1000 <= opts.deadline;
  for (const phase of phases) {
    for (const path of paths) {
      const why = unavailable.get(path.id);
      const req = requestFor(path, phase, at);
      let cell = why ? unavailableCell(path, phase, why) : await runCell(path, phase, req, ctx);
      for (
        let attempt = 2;
        !why && attempt <= MAX_ATTEMPTS && (cell.othersCpuPct ?? 0) > BUSY_PCT && canRetry();
        attempt++
      ) {
        opts.log(
          `${progress(path, phase, cell)} — other processes used ${(cell.othersCpuPct ?? 0).toFixed(0)}% of the CPU: measuring again`,
        );
        await sleep(1000);
        const again = await runCell(path, phase, req, ctx);
        const [kept, dropped] = (again.othersCpuPct ?? 0) < (cell.othersCpuPct ?? 0) ? [again, cell] : [cell, again];
        unreportedFailures += dropped.non2xx + dropped.errors + dropped.incomplete;
        cell = { ...kept, attempts: attempt };
      }
      if (cell.non2xx + cell.errors > 0 && !cell.failures) cell.failures = [await sampleFailure(req)];
      cells.push(cell);
      opts.log(progress(path, phase, cell));
      await sleep(250);
    }
  }
  return { cells, unreportedFailures };
}
