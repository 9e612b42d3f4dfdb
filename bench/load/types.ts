/** The contract between the bench and a load generator for non-streaming requests. */
import type { Percentiles } from '../stats.js';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Open keep-alive connections, each with one request in flight (closed loop). */
  connections: number;
  durationS: number;
}

export interface LoadResult {
  /** Responses received, whatever their status. */
  requests: number;
  non2xx: number;
  /** Connection resets, timeouts, read/write errors. */
  errors: number;
  elapsedS: number;
  /** Completed requests per second. */
  rps: number;
  /** Request latency in milliseconds, sub-millisecond resolution. */
  latencyMs: Percentiles | undefined;
}

export interface LoadGenerator {
  /** Name and version, for the report. */
  name: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}
