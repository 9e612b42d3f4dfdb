/** The Markdown report of one run: absolute figures and, beside them, ratios and differences against direct. */
import type { CellResult } from './cell.js';
import { cellOf, type BenchResults } from './results.js';

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

function unavailableRow(label: string, c: CellResult | undefined, width: number): string[] | undefined {
  if (c && !c.available) return [label, `not available: ${c.note ?? ''}`, ...Array<string>(width - 2).fill(DASH)];
  return undefined;
}

function nonStreamingTable(r: BenchResults, phase: string): string {
  const headers = [
    'path',
    'req/s',
    '× direct',
    'p50 ms',
    'p99 ms',
    'added p99 ms',
    'proxy CPU µs/req',
    'mock CPU µs/req',
    'proxy RSS MB',
    'errors',
    "others' CPU %",
  ];
  const rows = r.paths.map((p) => {
    const c = r.cells.find((x) => x.path === p.id && x.phase === phase);
    const missing = unavailableRow(p.label, c, headers.length);
    if (missing || !c) return missing ?? [p.label, ...Array<string>(headers.length - 1).fill(DASH)];
    const base = cellOf(r, p.baseline, phase);
    const direct = p.via === 'mock';
    return [
      p.label,
      int(c.rps),
      direct ? DASH : ratio(base ? c.rps / base.rps : undefined),
      num(c.latencyMs?.p50, 2),
      num(c.latencyMs?.p99, 2),
      direct ? DASH : signed(c.latencyMs && base?.latencyMs ? c.latencyMs.p99 - base.latencyMs.p99 : undefined, 2),
      int(c.gatewayCpuUs),
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
    '× direct',
    'TTFB p50 ms',
    'TTFB p99 ms',
    'added TTFB p50 ms',
    'added TTFB p99 ms',
    'total p50 ms',
    'total p99 ms',
    'proxy CPU µs/req',
    'proxy RSS MB',
    'errors',
    'incomplete',
    "others' CPU %",
  ];
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
      direct ? DASH : ratio(base ? c.rps / base.rps : undefined),
      num(c.ttfbMs?.p50, 2),
      num(c.ttfbMs?.p99, 2),
      added('p50'),
      added('p99'),
      num(c.latencyMs?.p50, 2),
      num(c.latencyMs?.p99, 2),
      int(c.gatewayCpuUs),
      num(c.gatewayPeakRssMb, 0),
      failures(c),
      String(c.incomplete),
      num(c.othersCpuPct, 0),
    ];
  });
  return table(headers, rows);
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
    '"× direct" and "added" compare with the direct call of the same client protocol in this run. "proxy" columns are the process between client and mock: Tollgate, or on the reference row a bare Fastify pass-through (bench/reference-proxy.ts) that shows what any Node proxy costs on this machine. CPU is user+system time per completed request (10 ms tick resolution over the whole cell). "others\' CPU %" is the share of the whole machine used during the cell by processes that are not part of the bench.',
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
  for (const phase of r.phases) {
    out.push(`## ${phase.label}`, '');
    out.push(phase.stream ? streamingTable(r, phase.id) : nonStreamingTable(r, phase.id), '');
  }
  out.push('## Memory of tollgate serve', '');
  out.push(
    table(
      ['', 'RSS MB'],
      [
        ['idle (start + 2 s)', num(r.gateway.idleRssMb, 1)],
        ['peak (VmHWM, whole run)', num(r.gateway.peakRssMb, 1)],
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
        t.measured === undefined ? DASH : `${t.measured.toFixed(t.unit === 'µs' ? 0 : 2)} ${t.unit}`,
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
