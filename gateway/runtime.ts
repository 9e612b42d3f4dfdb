import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAdminToken } from './admin/token.js';
import { dataDirInUse, DataDirBusyError } from './store/data-dir-lock.js';

/**
 * Written by a running gateway so that the CLI (and the desktop app) find its URL from the data
 * dir alone. Only a hint: whether a gateway runs is the data dir's lock (store/data-dir-lock.ts),
 * since a file left behind by a killed gateway, and the pid in it, say nothing.
 */
export interface RuntimeInfo {
  url: string;
  pid: number;
  startedAt: string;
}

const FILE = 'gateway.json';

export function writeRuntime(dataDir: string, info: RuntimeInfo): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
}

/** The hint as written, whether or not its gateway still runs; see runningGateway(). */
export function readRuntime(dataDir: string): RuntimeInfo | undefined {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return undefined;
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<RuntimeInfo> | null;
    return typeof info?.url === 'string' && typeof info.pid === 'number' ? (info as RuntimeInfo) : undefined;
  } catch {
    return undefined;
  }
}

export function removeRuntime(dataDir: string, pid: number): void {
  if (readRuntime(dataDir)?.pid === pid) rmSync(join(dataDir, FILE), { force: true });
}

/** The hint, when a process holds the data dir's lock; undefined when none does (a stale hint is ignored). */
export function runningGateway(dataDir: string): RuntimeInfo | undefined {
  return dataDirInUse(dataDir) ? readRuntime(dataDir) : undefined;
}

/**
 * The refusal for a second gateway on a data dir, naming the running one's URL when it answers
 * there as the gateway of this data dir: it accepts this data dir's admin token, which is random
 * per data dir, so another gateway that took the port since does not pass for it.
 */
export async function explainBusy(err: DataDirBusyError): Promise<DataDirBusyError> {
  const hint = readRuntime(err.dataDir);
  const token = readAdminToken(err.dataDir);
  if (!hint || !token) return err;
  try {
    const res = await fetch(`${hint.url}/api/status`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(2000),
    });
    await res.arrayBuffer();
    if (!res.ok) return err;
  } catch {
    return err;
  }
  return new DataDirBusyError(
    err.dataDir,
    `A Tollgate gateway already runs for ${err.dataDir} at ${hint.url} (pid ${hint.pid}). Use that one, or stop it before starting another.`,
  );
}
