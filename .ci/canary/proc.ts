/** Runs a command to the end with its output captured, stdin closed, and a time limit. */
import { spawn } from 'node:child_process';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The command could not start (ENOENT, EACCES): its message. */
  error?: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** Process groups still running, ended by stopAll() when the canary itself is stopped. */
const running = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Ends every command still running, with whatever it started. */
export function stopAll(): void {
  for (const pid of running) killGroup(pid);
  running.clear();
}

export function run(cmd: string, args: readonly string[], o: RunOptions): Promise<Ran> {
  return new Promise((resolve) => {
    // Its own process group, so a time-out ends what the command started too (npm's scripts, a
    // CLI's helpers); being detached, it gets no Ctrl-C from the terminal: stopAll() ends it then.
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) running.add(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid);
    }, o.timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      if (child.pid !== undefined) running.delete(child.pid);
    };
    child.on('error', (e) => {
      done();
      resolve({ code: null, stdout, stderr, timedOut, error: e.message });
    });
    child.on('close', (code) => {
      done();
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** Why a run failed, in one line: the time-out, the start error, or the last line of its output that says something. */
export function failure(what: string, r: Ran): string {
  if (r.error) return `${what}: ${r.error}`;
  if (r.timedOut) return `${what}: no result in time`;
  const lines = `${r.stderr}\n${r.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^npm (warn|notice)/i.test(l));
  // npm says `npm error code E404`, then what happened, then where its log is: keep the code and what happened.
  const npm = lines.filter((l) => l.startsWith('npm error ')).map((l) => l.slice('npm error '.length).trim());
  const code = npm.find((l) => /^code \w+$/.test(l))?.slice(5);
  const said = npm.find((l) => !/^(code|errno) |^A complete log/.test(l) && !/^\S+$/.test(l));
  const last = said
    ? `${code ? `${code} ` : ''}${said}`
    : (lines.find((l) => /error|ERR!|not found|cannot|failed/i.test(l)) ?? lines.at(-1) ?? '');
  return `${what}: exit ${r.code}${last ? `: ${last.slice(0, 300)}` : ''}`;
}
