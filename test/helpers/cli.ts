/** The `tollgate` command run as a user runs it (from source, through tsx), on one data dir. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPO } from './gateway.js';

const run = promisify(execFile);

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

export async function tollgateCli(
  args: string[],
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd = REPO,
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      // tsx by its path: `cwd` may be a folder where the package cannot be resolved.
      [
        '--import',
        pathToFileURL(join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        join(REPO, 'gateway/cli/main.ts'),
        ...args,
      ],
      {
        cwd,
        env: { ...env, TOLLGATE_DATA_DIR: dataDir },
        // A command that should have refused but serves instead must fail the test, not hang it.
        timeout: 60_000,
        killSignal: 'SIGKILL',
      },
    );
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
