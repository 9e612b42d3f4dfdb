/**
 * The real-CLI end-to-end suites of one prepared CLI, run in a child process (.ci/canary/suite-runner.ts)
 * whose environment names only this CLI's binary and puts the Node it needs first on PATH. The
 * gateway under test, the mock upstream and `tollgate` itself run on this machine's Node, as users
 * run them; only the CLI runs on the fetched one.
 */
import { join } from 'node:path';
import { CLIENTS, suitesOf } from './clients.js';
import type { Outcome } from './outcomes.js';
import type { Prepared } from './prepare.js';
import { failure, run } from './proc.js';

export interface SuiteRun {
  files: string[];
  outcomes: Outcome[];
  /** Why the run ended without every file reporting: a crash of the runner, or the time limit. */
  error?: string;
}

/** Above the e2e files' own per-test limits (a few minutes each) times their number, with room. */
const LIMIT_MS = 60 * 60_000;

export async function runSuites(repo: string, p: Prepared, log: string): Promise<SuiteRun> {
  const files = suitesOf(repo, p.client);
  if (files.length === 0) return { files, outcomes: [], error: `no test/e2e file is named after ${p.client.id}` };
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: p.path, [p.client.envVar]: p.bin };
  // Another CLI's variable from the caller's shell would run that CLI's tests under this one's row.
  for (const other of CLIENTS) if (other !== p.client) delete env[other.envVar];
  const r = await run(
    process.execPath,
    ['--import', 'tsx', join(repo, '.ci/canary/suite-runner.ts'), '--log', log, ...files],
    { cwd: repo, env, timeoutMs: LIMIT_MS },
  );
  const outcomes = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Outcome);
  const out: SuiteRun = { files, outcomes };
  if (r.code !== 0 || r.timedOut) out.error = failure('the suite runner', r);
  return out;
}
