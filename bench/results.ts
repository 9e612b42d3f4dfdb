/** The shape of one bench run, as written to bench/results/<timestamp>.json. */
import type { CellResult } from './cell.js';
import type { BenchPath, Phase } from './matrix.js';
import type { Comparison } from './recorded.js';

export interface TargetCheck {
  target: string;
  path: string;
  measured: number | undefined;
  limit: number;
  unit: string;
  /** n/a: the path or the figure is not available in this build or on this system. */
  result: 'PASS' | 'MISS' | 'n/a';
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  mode: 'default' | 'quick';
  machine: {
    cpu: string;
    cores: number;
    memoryGb: number;
    os: string;
    node: string;
    /** 1, 5 and 15 minute load averages when the run started. */
    loadAverage: number[];
  };
  setup: {
    cellSeconds: number;
    warmupSeconds: number;
    loadGenerator: string;
    streamClient: string;
    gatewayCommand: string;
    pinning: string;
    scenarios: Record<string, string>;
  };
  gateway: { idleRssMb: number | undefined; peakRssMb: number | undefined };
  /** The bare reference proxy's memory, measured as the gateway's (both run as plain JavaScript). */
  reference?: { idleRssMb: number | undefined; peakRssMb: number | undefined };
  /** This run against bench/recorded.json: request paths more than 15 % slower (absent when nothing is recorded). */
  comparison?: Comparison;
  paths: BenchPath[];
  phases: Phase[];
  cells: CellResult[];
  doctor: { ok: boolean; failed: string[] } | undefined;
  targets: TargetCheck[];
  /** `errors` also counts failed requests of warm-ups and of discarded (re-measured) attempts. */
  totals: { requests: number; non2xx: number; errors: number; incomplete: number };
}

export function cellOf(r: Pick<BenchResults, 'cells'>, path: string, phase: string): CellResult | undefined {
  return r.cells.find((c) => c.path === path && c.phase === phase && c.available);
}
