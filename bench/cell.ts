/**
 * One cell of the matrix: one path under one phase's load, with the CPU time the gateway and the mock spent
 * meanwhile (per completed request) and the gateway's highest resident memory.
 */
import type { LoadGenerator } from './load/index.js';
import type { BenchPath, BenchRequest, Phase } from './matrix.js';
import { cpuMicros, machineCpuMicros, sampleRss } from './proc-stats.js';
import type { Percentiles } from './stats.js';
import { runStreams } from './stream-client.js';

export interface CellResult {
  path: string;
  phase: string;
  /** False when the gateway lacks this route; the other fields are then zero. */
  available: boolean;
  note?: string;
  requests: number;
  non2xx: number;
  errors: number;
  /** Streams only: 2xx streams without their terminator. */
  incomplete: number;
  elapsedS: number;
  rps: number;
  /** Whole request (non-streaming) or whole stream, in ms. */
  latencyMs: Percentiles | undefined;
  /** Streams only: time to the first body byte, in ms. */
  ttfbMs?: Percentiles | undefined;
  /**
   * User+system CPU per completed request of the process between client and mock: the gateway, or the
   * reference proxy on its row (absent on direct rows).
   */
  gatewayCpuUs?: number;
  /** The mock upstream's CPU per completed request: what a bare Node HTTP server spends. */
  mockCpuUs?: number;
  /**
   * Share of the machine's CPU (all cores) used during the cell by processes other than the gateway, the mock and
   * the bench with its load generator. Anything well above 0 means the figures of this cell are disturbed.
   */
  othersCpuPct?: number;
  /** Highest VmRSS of that process sampled during the cell, MB. */
  gatewayPeakRssMb?: number;
  failures?: string[];
  /** How many times the cell was measured because the machine was busy; the least disturbed attempt is kept. */
  attempts?: number;
  /** process.hrtime-based window of the measured load, µs: lines the cell up with a CPU profile. */
  windowUs: [number, number];
}

export interface CellContext {
  loadgen: LoadGenerator;
  durationS: number;
  gatewayPid: number;
  proxyPid: number;
  mockPid: number;
}

const delta = (before: number | undefined, after: number | undefined): number | undefined =>
  before === undefined || after === undefined ? undefined : after - before;

/** CPU time of all of `pids` together, undefined if any cannot be read. */
function sumCpu(pids: number[]): number | undefined {
  let sum = 0;
  for (const pid of pids) {
    const t = cpuMicros(pid);
    if (t === undefined) return undefined;
    sum += t;
  }
  return sum;
}

const perRequest = (before: number | undefined, after: number | undefined, n: number): number | undefined =>
  before === undefined || after === undefined || n === 0 ? undefined : (after - before) / n;

export async function runCell(path: BenchPath, phase: Phase, req: BenchRequest, ctx: CellContext): Promise<CellResult> {
  const middle = path.via === 'gateway' ? ctx.gatewayPid : path.via === 'proxy' ? ctx.proxyPid : undefined;
  const pids = [ctx.gatewayPid, ctx.proxyPid, ctx.mockPid];
  const middleCpu0 = middle === undefined ? undefined : cpuMicros(middle);
  const ownCpu0 = sumCpu(pids);
  const mockCpu0 = cpuMicros(ctx.mockPid);
  const selfCpu0 = cpuMicros('self', true);
  const machine0 = machineCpuMicros();
  const rss = middle === undefined ? undefined : sampleRss(middle);
  const t0 = process.hrtime.bigint();
  const spec = {
    url: req.url,
    headers: req.headers,
    body: req.body,
    connections: phase.concurrency,
    durationS: ctx.durationS,
  };
  const load = phase.stream ? await runStreams({ ...spec, terminator: req.terminator }) : await ctx.loadgen.run(spec);
  const t1 = process.hrtime.bigint();
  const peak = rss?.stop();
  const middleCpu1 = middle === undefined ? undefined : cpuMicros(middle);
  const ownCpu1 = sumCpu(pids);
  const mockCpu1 = cpuMicros(ctx.mockPid);
  const selfCpu1 = cpuMicros('self', true);
  const machine1 = machineCpuMicros();
  const incomplete = 'incomplete' in load ? load.incomplete : 0;
  const cell: CellResult = {
    path: path.id,
    phase: phase.id,
    available: true,
    requests: load.requests,
    non2xx: load.non2xx,
    errors: load.errors,
    incomplete,
    elapsedS: load.elapsedS,
    rps: load.rps,
    latencyMs: 'totalMs' in load ? load.totalMs : load.latencyMs,
    mockCpuUs: perRequest(mockCpu0, mockCpu1, load.requests),
    windowUs: [Number(t0 / 1000n), Number(t1 / 1000n)],
  };
  const [children, me] = [delta(ownCpu0, ownCpu1), delta(selfCpu0, selfCpu1)];
  if (machine0 && machine1 && children !== undefined && me !== undefined) {
    const others = machine1.busy - machine0.busy - children - me;
    cell.othersCpuPct = Math.max(0, (100 * others) / (machine1.total - machine0.total));
  }
  if ('ttfbMs' in load) cell.ttfbMs = load.ttfbMs;
  if ('failures' in load && load.failures.length) cell.failures = load.failures;
  if (middle !== undefined) {
    cell.gatewayCpuUs = perRequest(middleCpu0, middleCpu1, load.requests);
    cell.gatewayPeakRssMb = peak;
  }
  return cell;
}

export function unavailableCell(path: BenchPath, phase: Phase, note: string): CellResult {
  return {
    path: path.id,
    phase: phase.id,
    available: false,
    note,
    requests: 0,
    non2xx: 0,
    errors: 0,
    incomplete: 0,
    elapsedS: 0,
    rps: 0,
    latencyMs: undefined,
    windowUs: [0, 0],
  };
}
