/**
 * Test gateways: a real `tollgate serve` in-process (fast) or as a child process (for kill -9),
 * each on its own temporary data dir and port, driven through the admin API as users do.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import {
  AdminClient,
  AdminError,
  bearer,
  type CreateKeyBody,
  type CreateLineBody,
  type LogsQuery,
  type ModelView,
} from '../../gateway/contract/admin/index.js';
import { readAdminToken } from '../../gateway/admin/token.js';
import { readRuntime } from '../../gateway/runtime.js';
import { serve, type Running, type ServeOptions } from '../../gateway/serve.js';
import { MemorySecretStore, type SecretStore } from '../../gateway/store/secrets.js';

// A file path on every OS (a URL's pathname would read /D:/… on Windows, where the release
// workflow runs the packaged-app test).
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The day the tests' gateways read shutdown dates against (gateway/catalogue/live.ts): the tests use
 * preset models that their vendors will retire, and must not start failing on the day one does.
 * Set here for every gateway a test starts, in-process or as a child (which inherits it); the
 * retirement tests give their own dates.
 */
export const TEST_CATALOGUE_DATE = '2026-11-24';
process.env.TOLLGATE_CATALOGUE_DATE ??= TEST_CATALOGUE_DATE;

/** The CLI's command line, as `npx tollgate` runs it from source. */
export const CLI = [process.execPath, '--import', 'tsx', join(REPO, 'gateway/cli/main.ts')] as const;

/** Runs `tollgate ARGS` for a data dir; never throws: the exit code comes back with the output. */
export async function runCli(
  args: string[],
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(CLI[0], [...CLI.slice(1), ...args], {
      cwd: REPO,
      env: { ...process.env, TOLLGATE_DATA_DIR: dataDir, ...env },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'tollgate-test-'));
}

/**
 * The admin API for tests: `call`, the typed client's, for every route by its contract name, and a
 * few conveniences the suite uses everywhere, each one line over `call`.
 */
export class Admin {
  readonly client: AdminClient;
  readonly call: AdminClient['call'];

  constructor(url: string, token: string) {
    this.client = new AdminClient({ baseUrl: url, headers: bearer(token) });
    this.call = this.client.call.bind(this.client);
  }

  /** A top-up in dollars. */
  topup = (usd: number) => this.call('topUp', { body: { amountMicro: Math.round(usd * 1_000_000) } });
  wallet = () => this.call('getWallet');
  /** A new key's secret. */
  key = async (name: string, extra: Omit<CreateKeyBody, 'name'> = {}) =>
    (await this.call('createKey', { body: { name, ...extra } })).secret;
  /** A line, speaking openai-chat unless the body says otherwise. */
  line = async (body: Partial<CreateLineBody> & Pick<CreateLineBody, 'name' | 'baseUrl' | 'models'>) =>
    (await this.call('addLine', { body: { protocol: 'openai-chat', ...body } })).line;
  group = (name: string, multiplier: string, models?: string[]) =>
    this.call('addGroup', { body: { name, multiplier, ...(models ? { models } : {}) } });
  /** Newest first, 1000 at most unless `limit` says otherwise. */
  logs = async (query: LogsQuery = {}) => (await this.call('listLogs', { query: { limit: 1000, ...query } })).entries;
  /** The catalogue's model, or undefined when there is none with that id. */
  model = async (id: string) => (await this.call('listModels')).models.find((m) => m.id === id);
  /** The catalogue's model; the call fails when there is none with that id. */
  modelOf = async (id: string) => {
    const found = await this.model(id);
    if (!found) throw new Error(`the catalogue has no model ${id}`);
    return found;
  };
  doctor = () => this.call('runDoctor');
}

/** The AdminError a call rejects with (the assertion fails if it succeeds or throws something else). */
export async function refusal(promise: Promise<unknown>): Promise<AdminError> {
  const err = await promise.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AdminError, String(err));
  return err;
}

export interface TestGateway {
  url: string;
  dataDir: string;
  /** The HOME whose coding tools the connect routes edit: a temporary one unless the test gave one. */
  home: string;
  admin: Admin;
  running: Running;
  /** An OpenAI SDK client for this gateway, no retries so every status is seen as it is. */
  openai(apiKey: string): OpenAI;
  close(): Promise<void>;
}

/**
 * In-process gateways keep upstream keys in memory unless a Secret Service runs (CI runs the
 * suite under test/helpers/keyring-session.sh, and then the real keychain is used). The connect
 * routes edit the tools' files under `home` with the environment `env` (empty unless given: no
 * CODEX_HOME and the like), never the HOME of whoever runs the tests.
 */
export async function startGateway(
  dataDir = tempDataDir(),
  secrets: SecretStore | undefined = process.env.DBUS_SESSION_BUS_ADDRESS ? undefined : new MemorySecretStore(),
  options: {
    home?: string;
    env?: Record<string, string>;
    serve?: Pick<
      ServeOptions,
      'bodyLimitBytes' | 'errorLog' | 'modelLaneLimit' | 'requestTimeoutMs' | 'requestCheckIntervalMs'
    >;
  } = {},
): Promise<TestGateway> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'tollgate-test-home-'));
  const running = await serve({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    toolsHome: { home, env: options.env ?? {} },
    ...(secrets ? { secrets } : {}),
    ...options.serve,
  });
  return {
    url: running.url,
    dataDir,
    home,
    running,
    admin: new Admin(running.url, running.adminToken),
    openai: (apiKey) => new OpenAI({ baseURL: `${running.url}/v1`, apiKey, maxRetries: 0 }),
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface ChildGateway {
  url: string;
  child: ChildProcess;
  admin: Admin;
  exited: Promise<number | null>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
}

/**
 * `tollgate serve` as a separate process, found through the runtime file it writes. `nodeArgs` go
 * to Node before the entry point (a test's own `--import`, say).
 */
export async function spawnGateway(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: string[] = [],
): Promise<ChildGateway> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', join(REPO, 'gateway/cli/main.ts'), 'serve', '--port', '0', '--data-dir', dataDir],
    {
      cwd: REPO,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let all = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    all += d.toString();
  });
  child.stdout!.on('data', (d: Buffer) => (all += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Up to 30 s: under tsx, with a loader hook (test/admin/connect-loading.test.ts), on a loaded 2-core
  // machine, start-up has taken 13 s.
  for (let i = 0; i < 600; i++) {
    const rt = readRuntime(dataDir);
    if (rt && rt.pid === child.pid) {
      const token = readAdminToken(dataDir)!;
      return { url: rt.url, child, admin: new Admin(rt.url, token), exited, output: () => all };
    }
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}: ${stderr}`);
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`gateway did not start: ${stderr}`);
}

/** The billing formula written out independently of gateway/billing, as the oracle for tests. */
export function expectedCostMicro(
  usage: { input: number; cached?: number; cacheWrite?: number; output: number },
  prices: ModelView['prices'],
  multiplier = 1,
): number {
  const m = BigInt(Math.round(multiplier * 1_000_000));
  const sum =
    BigInt(usage.input - (usage.cached ?? 0) - (usage.cacheWrite ?? 0)) * BigInt(prices.input) +
    BigInt(usage.cached ?? 0) * BigInt(prices.cacheRead) +
    BigInt(usage.cacheWrite ?? 0) * BigInt(prices.cacheWrite) +
    BigInt(usage.output) * BigInt(prices.output);
  const den = 1_000_000_000_000n;
  return Number((sum * m + den - 1n) / den);
}

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}
