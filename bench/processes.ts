/**
 * The bench's child processes (mock upstream, gateway), each optionally pinned to a core, and the cleanup that
 * stops them and removes temp dirs however the bench ends: normal exit, a thrown error, Ctrl-C or SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readAdminToken } from '../gateway/admin/token.js';
import { readRuntime } from '../gateway/runtime.js';

export const REPO = new URL('..', import.meta.url).pathname;

/** Things to undo, newest first; `runAll` is idempotent and also runs (synchronously, best effort) on exit. */
export class Cleanup {
  private readonly tasks: { name: string; async: () => Promise<void>; sync: () => void }[] = [];
  private ran = false;

  add(name: string, async: () => Promise<void>, sync: () => void): void {
    this.tasks.push({ name, async, sync });
  }

  tempDir(dir: string): void {
    const rm = (): void => rmSync(dir, { recursive: true, force: true });
    this.add(`remove ${dir}`, async () => rm(), rm);
  }

  async runAll(): Promise<void> {
    if (this.ran) return;
    this.ran = true;
    for (const task of [...this.tasks].reverse()) {
      try {
        await task.async();
      } catch (err) {
        process.stderr.write(`cleanup: ${task.name}: ${(err as Error).message}\n`);
      }
    }
  }

  /** Ctrl-C / SIGTERM stop the children and remove temp dirs before exiting; `exit` catches anything left. */
  installHandlers(): void {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.stderr.write(`\nbench: ${signal}, stopping the mock and the gateway…\n`);
      void this.runAll().then(() => process.exit(130));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.once('exit', () => {
      if (this.ran) return;
      for (const task of [...this.tasks].reverse()) {
        try {
          task.sync();
        } catch {
          // best effort while exiting
        }
      }
    });
  }
}

/**
 * Cores to pin to, when taskset exists and there are at least two cores: the gateway (and the proxy, which
 * runs when the gateway does not) alone on one, the mock upstream and the load side (this process, its
 * stream client and wrk, which inherit its affinity) on the other, so the load generator cannot preempt
 * the process being measured in the middle of a socket write.
 */
export function pinning(
  cores: number,
  unpinnedLoad = false,
): { mock?: number; gateway?: number; load?: number; note: string } {
  const taskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
  if (!taskset) return { note: 'taskset not found: nothing pinned' };
  if (cores < 2) return { note: 'one core: nothing pinned' };
  if (unpinnedLoad)
    return {
      mock: 0,
      gateway: 1,
      note: 'mock upstream on core 0, gateway (and proxy) on core 1 (taskset); load generator unpinned (--unpinned-load)',
    };
  return {
    mock: 0,
    gateway: 1,
    load: 0,
    note: 'gateway (and proxy) alone on core 1; mock upstream and load generator on core 0 (taskset)',
  };
}

/** Pins this process, every thread of it, to a core: what it spawns later inherits the affinity. */
export function pinSelf(cpu: number | undefined): void {
  if (cpu === undefined) return;
  spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' });
}

export interface Child {
  pid: number;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

function launch(
  cleanup: Cleanup,
  name: string,
  cpu: number | undefined,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Child {
  const [cmd, argv] = cpu === undefined ? [command, args] : ['taskset', ['-c', String(cpu), command, ...args]];
  // taskset execs the command, so the pid is the process we measure.
  const child = spawn(cmd, argv, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 5000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killed = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!killed) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  cleanup.add(
    `stop ${name}`,
    () => stop(),
    () => void child.kill('SIGKILL'),
  );
  if (child.pid === undefined) throw new Error(`could not start ${name} (${cmd})`);
  return { pid: child.pid, process: child, stop };
}

function collect(child: ChildProcess): () => string {
  let out = '';
  const add = (d: Buffer): void => {
    out = (out + d.toString()).slice(-4000);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => out;
}

/** A bench/*.ts entry that prints `<MARKER>=<url>` once it listens. */
async function startEntry(
  cleanup: Cleanup,
  name: string,
  cpu: number | undefined,
  file: string,
  args: string[],
  marker: string,
): Promise<Child & { url: string }> {
  const child = launch(
    cleanup,
    name,
    cpu,
    process.execPath,
    ['--import', 'tsx', join(REPO, 'bench', file), ...args],
    process.env,
  );
  return waitForUrl(child, name, marker);
}

/** Waits for a child to print `<MARKER>=<url>`. */
async function waitForUrl(child: Child, name: string, marker: string): Promise<Child & { url: string }> {
  const output = collect(child.process);
  for (let i = 0; i < 400; i++) {
    const url = new RegExp(`${marker}=(\\S+)`).exec(output())?.[1];
    if (url) return { ...child, url };
    if (child.process.exitCode !== null) break;
    await sleep(25);
  }
  await child.stop();
  throw new Error(`the ${name} did not start:\n${output()}`);
}

export function startMock(cleanup: Cleanup, cpu: number | undefined): Promise<Child & { url: string }> {
  return startEntry(cleanup, 'mock upstream', cpu, 'mock-server.ts', [], 'MOCK_URL');
}

/**
 * The bare Fastify proxy of the reference row, on the gateway's core (the two never carry load at once). It runs
 * as plain JavaScript, compiled here from bench/reference-proxy.ts, as the gateway runs from dist/: under tsx its
 * memory would include the TypeScript loader's, and the gateway's RSS could not be compared with it.
 */
export async function startReferenceProxy(
  cleanup: Cleanup,
  cpu: number | undefined,
  upstream: string,
): Promise<Child & { url: string }> {
  const { default: ts } = await import('typescript');
  const source = readFileSync(join(REPO, 'bench/reference-proxy.ts'), 'utf8');
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  // Inside the repository, so that its imports (fastify, undici) resolve to the repository's node_modules.
  const dir = join(REPO, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'reference-proxy.mjs');
  writeFileSync(file, js);
  const child = launch(cleanup, 'reference proxy', cpu, process.execPath, [file, '--upstream', upstream], process.env);
  return waitForUrl(child, 'reference proxy', 'PROXY_URL');
}

export interface GatewayProcess extends Child {
  url: string;
  adminToken: string;
}

/** `tollgate serve` on a free port, found through the runtime file it writes to its data dir. */
export async function startGateway(
  cleanup: Cleanup,
  cpu: number | undefined,
  nodeArgs: string[],
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<GatewayProcess> {
  const child = launch(
    cleanup,
    'gateway',
    cpu,
    process.execPath,
    [...nodeArgs, 'serve', '--port', '0', '--data-dir', dataDir],
    env,
  );
  const output = collect(child.process);
  for (let i = 0; i < 600; i++) {
    const rt = readRuntime(dataDir);
    const adminToken = readAdminToken(dataDir);
    if (rt && rt.pid === child.pid && adminToken) return { ...child, url: rt.url, adminToken };
    if (child.process.exitCode !== null) break;
    await sleep(25);
  }
  await child.stop();
  throw new Error(`the gateway did not start:\n${output()}`);
}
