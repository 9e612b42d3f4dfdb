/** Latency percentiles from raw samples (nearest rank), in the samples' unit. */

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** The middle of a few figures (the upper of the two middles of an even count): a run's median round. */
export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/** Grows by doubling; avoids a JS array of boxed numbers for 10^5 samples. */
export class Samples {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  percentiles(): Percentiles | undefined {
    if (this.length === 0) return undefined;
    const sorted = this.data.slice(0, this.length).sort();
    const at = (p: number): number =>
      sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
    let sum = 0;
    for (const v of sorted) sum += v;
    return { p50: at(50), p90: at(90), p99: at(99), max: at(100), mean: sum / sorted.length };
  }
}
