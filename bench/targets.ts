/**
 * The speed targets, checked as ratios and differences against the bare reference proxy of the same run
 * (bench/reference-proxy.ts), never as absolute timings: what any Node proxy costs on the machine of the run is
 * measured beside Tollgate. A miss is reported, it never fails the bench.
 */
import { cellOf, type BenchResults, type TargetCheck } from './results.js';

/** The reference row every gateway path is compared with. */
export const REFERENCE = 'proxy-chat';

const check = (
  target: string,
  path: string,
  measured: number | undefined,
  limit: number,
  unit: string,
  atMost: boolean,
): TargetCheck => ({
  target,
  path,
  measured,
  limit,
  unit,
  result:
    measured === undefined || Number.isNaN(measured)
      ? 'n/a'
      : (atMost ? measured <= limit : measured >= limit)
        ? 'PASS'
        : 'MISS',
});

const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;
const minus = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined ? undefined : a - b;

/** Every target applies to every gateway path, pass-through and translated alike. */
export function checkTargets(r: Omit<BenchResults, 'targets'>): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const gatewayPaths = r.paths.filter((p) => p.via === 'gateway');
  const ref = (phase: string) => cellOf(r, REFERENCE, phase);
  for (const p of gatewayPaths) {
    for (const phase of ['c16', 'c64']) {
      checks.push(
        check(
          `CPU per request at ${phase.replace('c', 'c=')} ≤ 1.5 × the bare proxy's`,
          p.id,
          ratio(cellOf(r, p.id, phase)?.gatewayCpuUs, ref(phase)?.gatewayCpuUs),
          1.5,
          '× proxy',
          true,
        ),
      );
    }
  }
  for (const p of gatewayPaths) {
    checks.push(
      check(
        "req/s at c=16 ≥ 0.6 × the bare proxy's",
        p.id,
        ratio(cellOf(r, p.id, 'c16')?.rps, ref('c16')?.rps),
        0.6,
        '× proxy',
        false,
      ),
    );
  }
  for (const p of gatewayPaths) {
    checks.push(
      check(
        "p50 at c=16 over a 50 ms upstream ≤ the bare proxy's + 0.5 ms",
        p.id,
        minus(cellOf(r, p.id, 'c16-delay50')?.latencyMs?.p50, ref('c16-delay50')?.latencyMs?.p50),
        0.5,
        'ms over proxy',
        true,
      ),
    );
  }
  for (const p of gatewayPaths) {
    checks.push(
      check(
        "streaming TTFB p50 at c=16 ≤ the bare proxy's + 0.5 ms",
        p.id,
        minus(cellOf(r, p.id, 'stream-c16')?.ttfbMs?.p50, ref('stream-c16')?.ttfbMs?.p50),
        0.5,
        'ms over proxy',
        true,
      ),
    );
  }
  checks.push(check('idle RSS of tollgate serve ≤ 90 MB', 'gateway', r.gateway.idleRssMb, 90, 'MB', true));
  checks.push(
    check(
      "peak RSS of tollgate serve ≤ 1.5 × the bare proxy's",
      'gateway',
      ratio(r.gateway.peakRssMb, r.reference?.peakRssMb),
      1.5,
      '× proxy',
      true,
    ),
  );
  return checks;
}
