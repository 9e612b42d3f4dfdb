/** Command-line flags of `npm run bench`. */
import { parseArgs } from 'node:util';

export type LoadGeneratorChoice = 'auto' | 'wrk' | 'autocannon';

export interface BenchOptions {
  /** CI mode: short cells; the exit code reports only errors and incomplete streams. */
  quick: boolean;
  /** Measured seconds per cell. */
  cellSeconds: number;
  /** Unmeasured seconds of load per path before the first cell, so the JIT is warm. */
  warmupSeconds: number;
  loadgen: LoadGeneratorChoice;
  /** Leave the load side unpinned (the bench's setup before 2026-11-27 evening), to compare with older runs. */
  unpinnedLoad: boolean;
  /** Measure a cell again when other processes disturbed it (default mode only, within a time budget). */
  retryBusy: boolean;
  /** Subsets of the matrix by id; undefined runs all. */
  paths: string[] | undefined;
  phases: string[] | undefined;
  /** Run one gateway path under one phase with the gateway under `node --cpu-prof`, and summarise the profile. */
  profile: boolean;
  /** Run the gateway of another checkout (its dist/), for an A/B comparison of two builds. */
  gatewayDir: string | undefined;
  /** Write this run's ratios to bench/recorded.json, the figures later runs are compared with. */
  record: boolean;
  /** Only the usage-log bench: a ledger of `ledgerRows` requests (bench/ledger.ts). */
  ledger: boolean;
  ledgerRows: number;
  help: boolean;
}

export const USAGE = `npm run bench [-- options]

  --quick             a few seconds per cell (CI); exits non-zero only on errors or incomplete streams
  --duration S        measured seconds per cell (default 5, quick 2)
  --loadgen NAME      wrk | autocannon | auto (default auto: wrk when installed, else autocannon)
  --unpinned-load     leave the load generator and this process unpinned (as runs before 2026-11-27 evening
                      did); by default they share core 0 with the mock and the gateway has core 1 alone
  --paths ID,...      run only these paths (and their direct baselines): direct-chat, direct-messages,
                      direct-responses, proxy-chat, chat>openai-chat, messages>anthropic,
                      messages>openai-chat, responses>anthropic
  --phases ID,...     run only these phases (c1, c16, c64, c16-delay50, stream-c16)
  --profile           run one gateway path under one phase (default chat>openai-chat at c16; choose with
                      --paths and --phases) with the gateway under --cpu-prof; the profile and its summary go
                      to bench/results/profiles/
  --gateway-dir DIR   bench the gateway built in another checkout (DIR/dist), e.g. an older commit in a
                      scratch worktree: an A/B comparison with the same bench and load
  --record            write this run's ratios to bench/recorded.json: later runs warn when a request path is
                      more than 15 % slower than them (commit the file on purpose)
  --ledger            only the usage-log bench: a ledger of 1,000,000 requests, the log's pages, 30-day
                      stats and a CSV export of every row (bench/ledger.ts)
  --rows N            requests in the --ledger bench (default 1000000)
  --help
`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      loadgen: { type: 'string', default: 'auto' },
      'unpinned-load': { type: 'boolean', default: false },
      paths: { type: 'string' },
      phases: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'gateway-dir': { type: 'string' },
      record: { type: 'boolean', default: false },
      ledger: { type: 'boolean', default: false },
      rows: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const quick = values.quick === true;
  const cellSeconds = values.duration === undefined ? (quick ? 2 : 5) : Number(values.duration);
  if (!(cellSeconds > 0)) throw new Error(`--duration must be a positive number of seconds, got "${values.duration}".`);
  const loadgen = values.loadgen as LoadGeneratorChoice;
  if (!['auto', 'wrk', 'autocannon'].includes(loadgen))
    throw new Error(`--loadgen must be wrk, autocannon or auto, got "${loadgen}".`);
  const ids = (v: string | undefined): string[] | undefined =>
    v
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const profile = values.profile === true;
  const ledgerRows = values.rows === undefined ? 1_000_000 : Number(values.rows);
  if (!(Number.isInteger(ledgerRows) && ledgerRows > 0))
    throw new Error(`--rows must be a positive integer, got "${values.rows}".`);
  return {
    quick,
    cellSeconds,
    warmupSeconds: quick ? 0.5 : 1.5,
    loadgen,
    unpinnedLoad: values['unpinned-load'] === true,
    retryBusy: !quick,
    paths: ids(values.paths) ?? (profile ? ['chat>openai-chat'] : undefined),
    phases: ids(values.phases) ?? (profile ? ['c16'] : undefined),
    profile,
    gatewayDir: values['gateway-dir'],
    record: values.record === true,
    ledger: values.ledger === true,
    ledgerRows,
    help: values.help === true,
  };
}
