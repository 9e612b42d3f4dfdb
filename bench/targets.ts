/**
 * The speed targets, checked as ratios and differences against the direct path of the same run, never as
 * absolute timings: a miss is reported, it never fails the bench.
 */
import { cellOf, type BenchResults, type TargetCheck } from './results.js';

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

export function checkTargets(r: Omit<BenchResults, 'targets'>): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const gatewayPaths = r.paths.filter((p) => p.via === 'gateway');
  for (const p of gatewayPaths.filter((g) => g.kind === 'pass-through')) {
    const gw = cellOf(r, p.id, 'c16');
    const direct = cellOf(r, p.baseline, 'c16');
    checks.push(
      check(
        'req/s at c=16 ≥ 0.45 × direct',
        p.id,
        gw && direct ? gw.rps / direct.rps : undefined,
        0.45,
        '× direct',
        false,
      ),
    );
  }
  for (const p of gatewayPaths) {
    const limit = p.kind === 'pass-through' ? 100 : 200;
    checks.push(
      check(
        `gateway CPU per ${p.kind} request (c=16) ≤ ${limit} µs`,
        p.id,
        cellOf(r, p.id, 'c16')?.gatewayCpuUs,
        limit,
        'µs',
        true,
      ),
    );
  }
  for (const p of gatewayPaths) {
    const gw = cellOf(r, p.id, 'c16-delay50')?.latencyMs;
    const direct = cellOf(r, p.baseline, 'c16-delay50')?.latencyMs;
    checks.push(
      check(
        'added p99 at c=16 over a 50 ms upstream ≤ 1.5 ms',
        p.id,
        gw && direct ? gw.p99 - direct.p99 : undefined,
        1.5,
        'ms',
        true,
      ),
    );
  }
  for (const p of gatewayPaths) {
    const gw = cellOf(r, p.id, 'stream-c16')?.ttfbMs;
    const direct = cellOf(r, p.baseline, 'stream-c16')?.ttfbMs;
    checks.push(
      check(
        'added streaming TTFB (p50, c=16) ≤ 0.5 ms',
        p.id,
        gw && direct ? gw.p50 - direct.p50 : undefined,
        0.5,
        'ms',
        true,
      ),
    );
  }
  checks.push(check('idle RSS of tollgate serve ≤ 90 MB', 'gateway', r.gateway.idleRssMb, 90, 'MB', true));
  return checks;
}
