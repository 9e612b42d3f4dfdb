import { AdminClient, AdminError, bearer, CLIENT_ERRORS } from '../contract/admin/index.js';
import { readAdminToken } from '../admin/token.js';
import { runningGateway } from '../runtime.js';

export class CliError extends Error {}

/**
 * The typed admin client of the gateway that runs for a data dir, found through its runtime file
 * and admin token. A runtime file left by a gateway that no longer holds the data dir is ignored:
 * its URL may belong to anyone now, and the admin token must not go there.
 */
export function clientForDataDir(dataDir: string): AdminClient {
  const runtime = runningGateway(dataDir);
  const token = readAdminToken(dataDir);
  if (!runtime || !token) {
    throw new CliError(
      `No Tollgate gateway is running for the data dir ${dataDir}. Start one with "npx tollgate serve" (same --data-dir).`,
    );
  }
  return new AdminClient({ baseUrl: runtime.url, headers: bearer(token) });
}

/** What the CLI prints for a failed admin call: the server's own message, or how to get one. */
export function cliMessage(err: AdminError): string {
  return err.code === CLIENT_ERRORS.unreachable ? `${err.message} Is "npx tollgate serve" still running?` : err.message;
}
