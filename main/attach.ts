/**
 * Attach-or-start: is a gateway already serving this data dir? First the data dir's lock
 * (store/data-dir-lock.ts): unless a live process holds it, no gateway runs here, whatever the
 * runtime file says, and nothing is asked. The runtime file left by a gateway that was killed
 * names a URL some other program may listen on by now; the admin token must never be sent there.
 * Only then the runtime file says where the gateway listens, and only a live answer from
 * `GET /api/status`, with this data dir's admin token and this data dir in the answer, says it is
 * ours. A pid alone proves nothing (pids are reused). The admin token is sent to a loopback
 * address only: the admin API answers nowhere else, and the token must not leave this machine
 * whatever the runtime file says.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLoopbackUrl } from '../gateway/contract/loopback.js';
import { dataDirInUse, readAdminToken, readRuntime } from '../gateway/desktop.js';
import type { StatusView } from '../gateway/contract/admin/index.js';
import { gatewayApi } from './gateway-api.js';
import type { Endpoint } from './supervisor.js';

export interface AttachDeps {
  /** Whether a live process holds the data dir's lock. */
  locked(dataDir: string): boolean;
  readUrl(dataDir: string): string | undefined;
  readToken(dataDir: string): string | undefined;
  status(url: string, token: string): Promise<StatusView>;
}

const PROBE_TIMEOUT_MS = 2_000;

export const realDeps: AttachDeps = {
  locked: (dir) => {
    try {
      return dataDirInUse(dir);
    } catch {
      return false; // an unreadable lock file: nothing is known to run here
    }
  },
  readUrl: (dir) => readRuntime(dir)?.url,
  readToken: readAdminToken,
  status: (url, token) => gatewayApi(url, token).call('getStatus', { timeoutMs: PROBE_TIMEOUT_MS }),
};

function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

export async function findRunningGateway(dataDir: string, deps: AttachDeps = realDeps): Promise<Endpoint | null> {
  if (!deps.locked(dataDir)) return null;
  const url = deps.readUrl(dataDir);
  const token = deps.readToken(dataDir);
  if (!url || !token || !isLoopbackUrl(url)) return null;
  try {
    const status = await deps.status(url, token);
    return canonical(status.dataDir) === canonical(dataDir) ? { url, token } : null;
  } catch {
    return null;
  }
}
