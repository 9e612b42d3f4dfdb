/**
 * The figures of the last recorded run (bench/recorded.json, kept in the repository and updated on purpose with
 * `--record`), and the comparison of a run with them: a request path more than 15 % slower than recorded is called
 * out in the report with both figures. Never a failure: a shared machine moves figures by more than that, so the
 * warning asks for a second look (an interleaved A/B run, docs/performance.md), not for a red build.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './processes.js';
import { cellOf, type BenchResults } from './results.js';
import { REFERENCE } from './targets.js';

export const RECORDED = join(REPO, 'bench/recorded.json');

/** Slower than recorded by more than this is called out. */
export const SLOWER = 0.15;

/** What is compared, per gateway path: ratios to the bare proxy of the same run, so machines and days compare. */
const FIGURES = [
  { id: 'cpu-c1', phase: 'c1', what: 'CPU per request at c=1', unit: '× proxy', higherIsSlower: true },
  { id: 'cpu-c16', phase: 'c16', what: 'CPU per request at c=16', unit: '× proxy', higherIsSlower: true },
  { id: 'cpu-c64', phase: 'c64', what: 'CPU per request at c=64', unit: '× proxy', higherIsSlower: true },
  { id: 'rps-c1', phase: 'c1', what: 'req/s at c=1', unit: '× proxy', higherIsSlower: false },
  { id: 'rps-c16', phase: 'c16', what: 'req/s at c=16', unit: '× proxy', higherIsSlower: false },
  { id: 'rps-c64', phase: 'c64', what: 'req/s at c=64', unit: '× proxy', higherIsSlower: false },
] as const;

export interface Recorded {
  recordedAt: string;
  mode: BenchResults['mode'];
  machine: string;
  /** path id → figure id → ratio to the bare proxy. */
  paths: Record<string, Record<string, number>>;
}

export interface Slowdown {
  path: string;
  what: string;
  recorded: number;
  now: number;
  unit: string;
  /** How much slower, as a fraction (0.2 = 20 % slower). */
  slower: number;
}

export interface Comparison {
  recordedAt: string;
  recordedMode: BenchResults['mode'];
  slowdowns: Slowdown[];
}

/** This run's ratios to the bare proxy, per gateway path and figure. */
export function ratiosOf(r: Pick<BenchResults, 'cells' | 'paths'>): Recorded['paths'] {
  const out: Recorded['paths'] = {};
  for (const p of r.paths.filter((x) => x.via === 'gateway')) {
    const figures: Record<string, number> = {};
    for (const f of FIGURES) {
      const gw = cellOf(r, p.id, f.phase);
      const ref = cellOf(r, REFERENCE, f.phase);
      const [a, b] = f.id.startsWith('cpu') ? [gw?.gatewayCpuUs, ref?.gatewayCpuUs] : [gw?.rps, ref?.rps];
      if (a !== undefined && b !== undefined && b > 0) figures[f.id] = Math.round((a / b) * 1000) / 1000;
    }
    if (Object.keys(figures).length > 0) out[p.id] = figures;
  }
  return out;
}

export function readRecorded(file = RECORDED): Recorded | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Recorded;
}

export function writeRecorded(r: BenchResults, file = RECORDED): void {
  const recorded: Recorded = {
    recordedAt: r.startedAt,
    mode: r.mode,
    machine: `${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}`,
    paths: ratiosOf(r),
  };
  writeFileSync(file, JSON.stringify(recorded, null, 2) + '\n');
}

/** Each figure of this run more than SLOWER worse than the recorded one. */
export function compareWithRecorded(r: Pick<BenchResults, 'cells' | 'paths'>, recorded: Recorded): Comparison {
  const now = ratiosOf(r);
  const slowdowns: Slowdown[] = [];
  for (const [path, figures] of Object.entries(now)) {
    const before = recorded.paths[path];
    if (!before) continue;
    for (const f of FIGURES) {
      const [was, is] = [before[f.id], figures[f.id]];
      if (was === undefined || is === undefined || was <= 0 || is <= 0) continue;
      const slower = f.higherIsSlower ? is / was - 1 : was / is - 1;
      if (slower > SLOWER) slowdowns.push({ path, what: f.what, recorded: was, now: is, unit: f.unit, slower });
    }
  }
  return { recordedAt: recorded.recordedAt, recordedMode: recorded.mode, slowdowns };
}
