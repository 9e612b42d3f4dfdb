import { readAdminToken } from '../admin/token.js';
import { readRuntime } from '../runtime.js';

export class CliError extends Error {}

/** A thin client of the admin API of the gateway that runs for a data dir. */
export class AdminClient {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  static forDataDir(dataDir: string): AdminClient {
    const runtime = readRuntime(dataDir);
    const token = readAdminToken(dataDir);
    if (!runtime || !token) {
      throw new CliError(`No Tollgate gateway is running for the data dir ${dataDir}. Start one with "npx tollgate serve" (same --data-dir).`);
    }
    return new AdminClient(runtime.url, token);
  }

  async call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? null : JSON.stringify(body),
      });
    } catch {
      throw new CliError(`Cannot reach the Tollgate gateway at ${this.url}. Is "npx tollgate serve" still running?`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CliError(`The gateway answered ${res.status} with a body that is not JSON.`);
    }
    if (!res.ok) {
      const msg = (parsed as { error?: { message?: string } }).error?.message ?? text;
      throw new CliError(msg);
    }
    return parsed as T;
  }
}
