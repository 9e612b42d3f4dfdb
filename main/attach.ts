/**
 * Attach-or-start: is a gateway already serving this data dir? The runtime file says where one
 * listened; only a live answer from `GET /api/status`, with this data dir's admin token and this
 * data dir in the answer, says it still does. A pid alone proves nothing (pids are reused). The
 * admin token is sent to a loopback address only: the admin API answers nowhere else, and the
 * token must not leave this machine whatever the runtime file says.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLoopbackUrl } from '../gateway/contract/loopback.js';
import { readAdminToken, readRuntime } from '../gateway/desktop.js';
import type { StatusView } from '../gateway/contract/admin/index.js';
import { gatewayApi } from './gateway-api.js';
import type { Endpoint } from './supervisor.js';

export interface AttachDeps {
  readUrl(dataDir: string): string | undefined;
  readToken(dataDir: string): string | undefined;
  status(url: string, token: string): Promise<StatusView>;
}

const PROBE_TIMEOUT_MS = 2_000;

export const realDeps: AttachDeps = {
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
