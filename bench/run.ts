/**
 * `npm run bench`: the gateway side by side with direct calls to the same mock upstream, in one run, checked
 * against the speed targets (targets.ts).
 * Starts the mock, `tollgate serve` and a bare reference proxy (pinned to cores), sets the gateway up through
 * its admin API, runs every path under every phase, then prints and saves the tables and the targets.
 * How to read the output: docs/performance.md.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gatewayCommand } from './build.js';
import type { CellResult } from './cell.js';
import { pickLoadGenerator } from './load/index.js';
import { PATHS, PHASES, SCENARIOS, type Endpoints } from './matrix.js';
import { parseOptions, USAGE, type BenchOptions } from './options.js';
import { PROFILES, RESULTS, writeProfileSummary, writeResults } from './output.js';
import { Cleanup, pinning, pinSelf, startGateway, startMock, startReferenceProxy } from './processes.js';
import { peakRssMb, resetPeakRss, rssMb } from './proc-stats.js';
import type { BenchResults } from './results.js';
import { doctor, setupGateway, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './setup.js';
import { sweep } from './sweep.js';
import { checkTargets } from './targets.js';
import { compareWithRecorded, readRecorded, RECORDED, writeRecorded } from './recorded.js';
import { ledgerReport, runLedgerBench } from './ledger.js';

/** Re-measuring disturbed cells stops where the whole default run would pass about five minutes. */
const BUDGET_MS = 290_000;
const STREAM_CLIENT = 'undici Pool (TTFB client in bench/stream-client.ts)';

const log = (line: string): void => void process.stderr.write(line + '\n');

function select<T extends { id: string }>(all: readonly T[], ids: string[] | undefined, what: string): T[] {
  if (!ids) return [...all];
  const unknown = ids.filter((id) => !all.some((x) => x.id === id));
  if (unknown.length)
    throw new Error(`unknown ${what} ${unknown.join(', ')}; choose from ${all.map((x) => x.id).join(', ')}`);
  return all.filter((x) => ids.includes(x.id));
}

function machine(): BenchResults['machine'] {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: os.loadavg(),
  };
}

/** `--ledger`: the usage log at scale, in this process; a miss of its targets fails the run. */
async function ledgerMain(opts: BenchOptions): Promise<number> {
  const res = await runLedgerBench(opts.ledgerRows, log);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'ledger-latest.json'), JSON.stringify({ machine: machine(), ...res }, null, 2) + '\n');
  process.stdout.write(ledgerReport(res));
  log('bench: wrote bench/results/ledger-latest.json');
  return res.pass ? 0 : 1;
}

async function main(opts: BenchOptions, cleanup: Cleanup): Promise<number> {
  if (opts.ledger) return ledgerMain(opts);
  const startedAt = new Date();
  const host = machine();
  const chosen = opts.paths ? select(PATHS, opts.paths, 'path') : PATHS.filter((p) => !p.onDemand);
  // A path is reported against its direct baseline, so a subset brings its baselines along.
  const paths = opts.profile ? chosen : PATHS.filter((p) => chosen.some((c) => c.id === p.id || c.baseline === p.id));
  const phases = select(PHASES, opts.phases, 'phase');
  if (opts.profile && (paths.length !== 1 || phases.length !== 1 || paths[0]!.via !== 'gateway')) {
    throw new Error(
      '--profile runs one gateway path under one phase: pass at most one of each with --paths and --phases.',
    );
  }
  const cmd = gatewayCommand(log, opts.gatewayDir);
  const loadgen = pickLoadGenerator(opts.loadgen);
  const pin = pinning(os.availableParallelism(), opts.unpinnedLoad);
  pinSelf(pin.load);
  mkdirSync(opts.profile ? PROFILES : RESULTS, { recursive: true });
  log(`bench: ${opts.quick ? 'quick' : 'default'} mode, ${opts.cellSeconds} s per cell; ${loadgen.name}; ${pin.note}`);

  const mock = await startMock(cleanup, pin.mock);
  const dataDir = mkdtempSync(join(os.tmpdir(), 'tollgate-bench-'));
  cleanup.tempDir(dataDir);
  const nodeArgs = opts.profile ? ['--cpu-prof', '--cpu-prof-dir', PROFILES, ...cmd.nodeArgs] : cmd.nodeArgs;
  // A fixed catalogue day: the bench's models (bench/matrix.ts) must not be refused when their vendor's shutdown date comes.
  const gw = await startGateway(cleanup, pin.gateway, nodeArgs, dataDir, {
    TOLLGATE_CATALOGUE_DATE: '2026-11-24',
    ...process.env,
    [UPSTREAM_KEY_ENV]: UPSTREAM_KEY,
  });
  log(`bench: mock ${mock.url} (pid ${mock.pid}), gateway ${gw.url} (pid ${gw.pid}, ${cmd.description})`);
  await sleep(2000);
  const idleRssMb = rssMb(gw.pid);
  const proxy = await startReferenceProxy(cleanup, pin.gateway, mock.url);
  await sleep(2000);
  const proxyIdleRssMb = rssMb(proxy.pid);

  const { key } = await setupGateway(gw.url, gw.adminToken, mock.url);
  const at: Endpoints = {
    mockUrl: mock.url,
    proxyUrl: proxy.url,
    upstreamKey: UPSTREAM_KEY,
    gatewayUrl: gw.url,
    gatewayKey: key,
  };
  const ctx = { loadgen, durationS: opts.cellSeconds, gatewayPid: gw.pid, proxyPid: proxy.pid, mockPid: mock.pid };
  // The peak is the load's: start-up's transient peak (reported apart) is not what load costs.
  const gatewayStartPeak = peakRssMb(gw.pid);
  const proxyStartPeak = peakRssMb(proxy.pid);
  const peakSince = resetPeakRss(gw.pid) && resetPeakRss(proxy.pid) ? 'load' : 'start';
  if (peakSince === 'start') log('bench: VmHWM could not be reset: the peak RSS figures include start-up');
  const { cells, unreportedFailures } = await sweep(paths, phases, at, ctx, {
    warmupSeconds: opts.warmupSeconds,
    retryBusy: opts.retryBusy,
    deadline: startedAt.getTime() + BUDGET_MS,
    log,
  });

  const peak = peakRssMb(gw.pid);
  const proxyPeak = peakRssMb(proxy.pid);
  await sleep(500); // the last settlements may land just after their responses: wait before checking the ledger
  const ledger = await doctor(gw.url, gw.adminToken).catch((err: unknown) => ({
    ok: false,
    failed: [`doctor: ${(err as Error).message}`],
  }));
  await gw.stop(30_000); // --cpu-prof writes the profile on a clean exit

  const sum = (f: (c: CellResult) => number): number => cells.reduce((n, c) => n + f(c), 0);
  const partial: Omit<BenchResults, 'targets'> = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    mode: opts.quick ? 'quick' : 'default',
    machine: host,
    setup: {
      cellSeconds: opts.cellSeconds,
      warmupSeconds: opts.warmupSeconds,
      loadGenerator: loadgen.name,
      streamClient: STREAM_CLIENT,
      gatewayCommand: cmd.description,
      pinning: pin.note,
      scenarios: SCENARIOS,
    },
    gateway: { idleRssMb, peakRssMb: peak, peakSince, startPeakRssMb: gatewayStartPeak },
    reference: { idleRssMb: proxyIdleRssMb, peakRssMb: proxyPeak, peakSince, startPeakRssMb: proxyStartPeak },
    paths,
    phases,
    cells,
    doctor: ledger,
    totals: {
      requests: sum((c) => c.requests),
      non2xx: sum((c) => c.non2xx),
      errors: sum((c) => c.errors) + unreportedFailures,
      incomplete: sum((c) => c.incomplete),
    },
  };
  const recorded = readRecorded();
  const results: BenchResults = {
    ...partial,
    targets: checkTargets(partial),
    ...(recorded ? { comparison: compareWithRecorded(partial, recorded) } : {}),
  };
  const failures = results.totals.non2xx + results.totals.errors + results.totals.incomplete;

  if (opts.profile) {
    const out = writeProfileSummary(gw.pid, paths[0]!, phases[0]!, cells[0]!, startedAt);
    process.stdout.write(out.markdown);
    log(`bench: profile ${out.profile}, summary ${out.file}`);
  } else {
    const out = writeResults(results);
    process.stdout.write(out.markdown);
    log(`bench: wrote ${out.base}.{json,md} and bench/results/latest.{json,md}`);
    if (opts.record) {
      writeRecorded(results);
      log(`bench: recorded this run's ratios in ${RECORDED}`);
    }
    for (const s of results.comparison?.slowdowns ?? [])
      log(
        `bench: WARNING ${s.path}: ${s.what} ${s.now.toFixed(2)} ${s.unit}, recorded ${s.recorded.toFixed(2)} (${(s.slower * 100).toFixed(0)} % slower)`,
      );
  }
  // Misses of the targets never fail the run; failed requests and incomplete streams do.
  if (failures > 0) log(`bench: ${failures} failed requests or incomplete streams`);
  return failures > 0 ? 1 : 0;
}

let opts: BenchOptions;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const cleanup = new Cleanup();
cleanup.installHandlers();
let code = 1;
try {
  code = await main(opts, cleanup);
} catch (err) {
  log(`bench: ${(err as Error).stack ?? String(err)}`);
} finally {
  await cleanup.runAll();
}
process.exit(code);
