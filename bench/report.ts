/** The Markdown report of one run: absolute figures and, beside them, ratios and differences against direct. */
import type { CellResult } from './cell.js';
import { cellOf, type BenchResults } from './results.js';
import { REFERENCE } from './targets.js';

const DASH = '–';

/** Numbers right-aligned: every column but the first `textColumns`. */
function table(headers: string[], rows: string[][], textColumns = 1): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const align = headers.map((_, i) => (i < textColumns ? '---' : '---:'));
  return [line(headers), line(align), ...rows.map(line)].join('\n');
}

const num = (v: number | undefined, digits: number): string =>
  v === undefined || Number.isNaN(v) ? DASH : v.toFixed(digits);
const int = (v: number | undefined): string =>
  v === undefined || Number.isNaN(v) ? DASH : Math.round(v).toLocaleString('en-US');
const signed = (v: number | undefined, digits: number): string =>
  v === undefined || Number.isNaN(v) ? DASH : `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;
const ratio = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? DASH : `${v.toFixed(2)}×`);
const failures = (c: CellResult): string => String(c.non2xx + c.errors);
const quotient = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;
const difference = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined ? undefined : a - b;

function unavailableRow(label: string, c: CellResult | undefined, width: number): string[] | undefined {
  if (c && !c.available) return [label, `not available: ${c.note ?? ''}`, ...Array<string>(width - 2).fill(DASH)];
  return undefined;
}

/** The reference row of the same phase, which the "× proxy" and "over proxy" columns compare with. */
const referenceOf = (r: BenchResults, phase: string): CellResult | undefined => cellOf(r, REFERENCE, phase);

function nonStreamingTable(r: BenchResults, phase: string): string {
  const headers = [
    'path',
    'req/s',
    '× proxy',
    'p50 ms',
    'p99 ms',
    'added p50 ms',
    'added p99 ms',
    'CPU µs/req',
    'CPU × proxy',
    'mock CPU µs/req',
    'RSS MB',
    'errors',
    "others' CPU %",
  ];
  const ref = referenceOf(r, phase);
  const rows = r.paths.map((p) => {
    const c = r.cells.find((x) => x.path === p.id && x.phase === phase);
    const missing = unavailableRow(p.label, c, headers.length);
    if (missing || !c) return missing ?? [p.label, ...Array<string>(headers.length - 1).fill(DASH)];
    const base = cellOf(r, p.baseline, phase);
    const direct = p.via === 'mock';
    const added = (pick: 'p50' | 'p99'): string =>
      direct ? DASH : signed(c.latencyMs && base?.latencyMs ? c.latencyMs[pick] - base.latencyMs[pick] : undefined, 2);
    return [
      p.label,
      int(c.rps),
      direct ? DASH : ratio(ref ? c.rps / ref.rps : undefined),
      num(c.latencyMs?.p50, 2),
      num(c.latencyMs?.p99, 2),
      added('p50'),
      added('p99'),
      int(c.gatewayCpuUs),
      direct ? DASH : ratio(quotient(c.gatewayCpuUs, ref?.gatewayCpuUs)),
      int(c.mockCpuUs),
      num(c.gatewayPeakRssMb, 0),
      failures(c),
      num(c.othersCpuPct, 0),
    ];
  });
  return table(headers, rows);
}

function streamingTable(r: BenchResults, phase: string): string {
  const headers = [
    'path',
    'streams/s',
    'TTFB p50 ms',
    'TTFB p99 ms',
    'added TTFB p50 ms',
    'added TTFB p99 ms',
    'TTFB p50 over proxy ms',
    'total p50 ms',
    'total p99 ms',
    'CPU µs/req',
    'CPU × proxy',
    'RSS MB',
    'errors',
    'incomplete',
    "others' CPU %",
  ];
  const ref = referenceOf(r, phase);
  const rows = r.paths.map((p) => {
    const c = r.cells.find((x) => x.path === p.id && x.phase === phase);
    const missing = unavailableRow(p.label, c, headers.length);
    if (missing || !c) return missing ?? [p.label, ...Array<string>(headers.length - 1).fill(DASH)];
    const base = cellOf(r, p.baseline, phase);
    const direct = p.via === 'mock';
    const added = (pick: 'p50' | 'p99'): string =>
      direct ? DASH : signed(c.ttfbMs && base?.ttfbMs ? c.ttfbMs[pick] - base.ttfbMs[pick] : undefined, 2);
    return [
      p.label,
      int(c.rps),
      num(c.ttfbMs?.p50, 2),
      num(c.ttfbMs?.p99, 2),
      added('p50'),
      added('p99'),
      direct ? DASH : signed(c.ttfbMs && ref?.ttfbMs ? c.ttfbMs.p50 - ref.ttfbMs.p50 : undefined, 2),
      num(c.latencyMs?.p50, 2),
      num(c.latencyMs?.p99, 2),
      int(c.gatewayCpuUs),
      direct ? DASH : ratio(quotient(c.gatewayCpuUs, ref?.gatewayCpuUs)),
      num(c.gatewayPeakRssMb, 0),
      failures(c),
      String(c.incomplete),
      num(c.othersCpuPct, 0),
    ];
  });
  return table(headers, rows);
}

/** One line per gateway path: every ratio to the bare proxy the targets and the recorded figures read. */
function ratiosTable(r: BenchResults): string {
  const headers = [
    'path',
    'kind',
    'CPU × proxy c=1 / 16 / 64',
    'req/s × proxy c=1 / 16 / 64',
    'p99 c=64 ms (proxy)',
    'p50 / p99 over proxy at 50 ms, ms',
    'TTFB p50 over proxy ms',
  ];
  const three = (f: (phase: string) => string): string => ['c1', 'c16', 'c64'].map(f).join(' / ');
  const rows = r.paths
    .filter((p) => p.via === 'gateway')
    .map((p) => {
      const c = (phase: string) => cellOf(r, p.id, phase);
      const slow = c('c16-delay50')?.latencyMs;
      const refSlow = referenceOf(r, 'c16-delay50')?.latencyMs;
      return [
        p.label,
        p.kind,
        three((ph) => ratio(quotient(c(ph)?.gatewayCpuUs, referenceOf(r, ph)?.gatewayCpuUs))),
        three((ph) => ratio(quotient(c(ph)?.rps, referenceOf(r, ph)?.rps))),
        `${num(c('c64')?.latencyMs?.p99, 1)} (${num(referenceOf(r, 'c64')?.latencyMs?.p99, 1)})`,
        `${signed(slow && refSlow ? slow.p50 - refSlow.p50 : undefined, 2)} / ${signed(slow && refSlow ? slow.p99 - refSlow.p99 : undefined, 2)}`,
        signed(difference(c('stream-c16')?.ttfbMs?.p50, referenceOf(r, 'stream-c16')?.ttfbMs?.p50), 2),
      ];
    });
  return table(headers, rows, 2);
}

function comparisonLines(r: BenchResults): string[] {
  const cmp = r.comparison;
  if (!cmp)
    return ['No recorded run to compare with (bench/recorded.json; `npm run bench -- --record` writes it).', ''];
  const since = `the recorded run (bench/recorded.json, ${cmp.recordedAt}, ${cmp.recordedMode} mode)`;
  if (cmp.slowdowns.length === 0)
    return [`No request path is more than 15 % slower than ${since}, by the ratios to the bare proxy.`, ''];
  return [
    `**Warning: ${cmp.slowdowns.length} figures are more than 15 % slower than ${since}.** A shared machine can do this by itself; compare the builds interleaved before believing it (docs/performance.md).`,
    '',
    ...cmp.slowdowns.map(
      (s) =>
        `- ${s.path}: ${s.what} ${s.now.toFixed(2)} ${s.unit}, recorded ${s.recorded.toFixed(2)} ${s.unit} (${(s.slower * 100).toFixed(0)} % slower)`,
    ),
    '',
  ];
}

export function markdownReport(r: BenchResults): string {
  const out: string[] = [];
  out.push(`# Tollgate bench — ${r.startedAt}${r.mode === 'quick' ? ' (quick)' : ''}`, '');
  out.push(
    `Machine: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGb} GB, ${r.machine.os}, Node ${r.machine.node}.  `,
    `Pinning: ${r.setup.pinning}.  `,
    `Load: ${r.setup.loadGenerator} (non-streaming), ${r.setup.streamClient} (streaming); ${r.setup.cellSeconds} s per cell after ${r.setup.warmupSeconds} s of warm-up per path; closed loop, keep-alive.  `,
    `Gateway: ${r.setup.gatewayCommand}. Mock scenarios: ${Object.entries(r.setup.scenarios)
      .map(([k, v]) => `${k} \`${v}\``)
      .join(', ')}.`,
    '',
    '"× proxy" and "over proxy" compare with the bare Fastify + undici proxy (bench/reference-proxy.ts) in the same phase of this run: what any Node proxy costs on this machine, and what the targets are set against. "added" compares with the direct call of the same client protocol. CPU and RSS are those of the process between client and mock: Tollgate, or the proxy on its row; CPU is user+system time per completed request (10 ms tick resolution over the whole cell). "others\' CPU %" is the share of the whole machine used during the cell by processes that are not part of the bench.',
    '',
  );
  const others = r.cells.flatMap((c) => (c.othersCpuPct === undefined ? [] : [c.othersCpuPct]));
  const meanOthers = others.length ? others.reduce((a, b) => a + b, 0) / others.length : 0;
  const retried = r.cells.filter((c) => (c.attempts ?? 1) > 1).length;
  if (retried)
    out.push(
      `${retried} cells were disturbed by other processes and measured again; each shows its least disturbed attempt.`,
      '',
    );
  if (meanOthers > 10) {
    out.push(
      `**Warning: the machine was busy.** Other processes used ${meanOthers.toFixed(0)}% of its CPU on average during the measured cells (load average ${r.machine.loadAverage.map((l) => l.toFixed(1)).join(' / ')} at the start): latencies and ratios of this run are disturbed; CPU µs per request much less so.`,
      '',
    );
  }
  out.push('## Ratios to the bare proxy', '');
  out.push(ratiosTable(r), '');
  out.push(...comparisonLines(r));
  for (const phase of r.phases) {
    out.push(`## ${phase.label}`, '');
    out.push(phase.stream ? streamingTable(r, phase.id) : nonStreamingTable(r, phase.id), '');
  }
  out.push('## Memory', '');
  out.push(
    table(
      ['', 'tollgate serve MB', 'bare proxy MB', '× proxy'],
      [
        [
          'idle (start + 2 s)',
          num(r.gateway.idleRssMb, 1),
          num(r.reference?.idleRssMb, 1),
          ratio(quotient(r.gateway.idleRssMb, r.reference?.idleRssMb)),
        ],
        [
          r.gateway.peakSince === 'load' ? 'peak under load (VmHWM since the load began)' : 'peak (VmHWM, whole run)',
          num(r.gateway.peakRssMb, 1),
          num(r.reference?.peakRssMb, 1),
          ratio(quotient(r.gateway.peakRssMb, r.reference?.peakRssMb)),
        ],
        ...(r.gateway.peakSince === 'load'
          ? [
              [
                'start-up peak (VmHWM before the load)',
                num(r.gateway.startPeakRssMb, 1),
                num(r.reference?.startPeakRssMb, 1),
                ratio(quotient(r.gateway.startPeakRssMb, r.reference?.startPeakRssMb)),
              ],
            ]
          : []),
      ],
    ),
    '',
  );
  out.push('## Speed targets', '');
  out.push(
    table(
      ['target', 'path', 'measured', 'limit', 'result'],
      r.targets.map((t) => [
        t.target,
        t.path,
        t.measured === undefined ? DASH : `${t.measured.toFixed(2)} ${t.unit}`,
        `${t.limit} ${t.unit}`,
        `**${t.result}**`,
      ]),
      2,
    ),
    '',
  );
  const t = r.totals;
  out.push(
    `Totals: ${t.requests.toLocaleString('en-US')} requests, ${t.non2xx} non-2xx, ${t.errors} socket errors/timeouts, ${t.incomplete} incomplete streams.`,
    r.doctor
      ? `Ledger check (\`/api/doctor\`) after the run: ${r.doctor.ok ? 'ok' : `FAILED — ${r.doctor.failed.join('; ')}`}.`
      : '',
  );
  const failed = r.cells.filter((c) => c.failures?.length);
  if (failed.length) {
    out.push('', '## Failures (first few per cell)', '');
    for (const c of failed) out.push(`- ${c.path} / ${c.phase}: ${(c.failures ?? []).join(' · ')}`);
  }
  return out.join('\n') + '\n';
}
