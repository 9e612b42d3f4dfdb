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

/** RSS of one process, MB. */
export interface Memory {
  /** Two seconds after it started (for the gateway: after it wrote its runtime file), before any setup. */
  idleRssMb: number | undefined;
  /**
   * The highest RSS under the bench's load: VmHWM, set back to the RSS of the moment just before the
   * first path's probe (`peakSince: 'load'`); where that cannot be done, VmHWM of the whole life
   * (`peakSince: 'start'`), start-up's transient peak included.
   */
  peakRssMb: number | undefined;
  peakSince?: 'load' | 'start';
  /** VmHWM before the load: start-up's transient peak (the start-up collection, module loading). */
  startPeakRssMb?: number | undefined;
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
  gateway: Memory;
  /** The bare reference proxy's memory, measured as the gateway's (both run as plain JavaScript). */
  reference?: Memory;
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
