import { AdminClient, AdminError, bearer, CLIENT_ERRORS } from '../contract/admin/index.js';
import { isLoopbackUrl } from '../contract/loopback.js';
import { readAdminToken } from '../admin/token.js';
import { runningGateway } from '../runtime.js';

export class CliError extends Error {}

/**
 * The typed admin client of the gateway that runs for a data dir, found through its runtime file
 * and admin token. A runtime file left by a gateway that no longer holds the data dir is ignored:
 * its URL may belong to anyone now, and the admin token must not go there. Nor does it go off this
 * machine: the admin API answers only on loopback, so a gateway bound to a LAN address alone
 * cannot be managed from here, and is told so before anything is sent.
 */
export function clientForDataDir(dataDir: string): AdminClient {
  const runtime = runningGateway(dataDir);
  const token = readAdminToken(dataDir);
  if (!runtime || !token) {
    throw new CliError(
      `No Tollgate gateway is running for the data dir ${dataDir}. Start one with "npx tollgate serve" (same --data-dir).`,
    );
  }
  if (!isLoopbackUrl(runtime.url)) {
    throw new CliError(
      `The gateway for ${dataDir} listens at ${runtime.url}, not on a loopback address, and the admin API answers only on loopback. Start it with a loopback --host (the default, 127.0.0.1).`,
    );
  }
  return new AdminClient({ baseUrl: runtime.url, headers: bearer(token) });
}

/** What the CLI prints for a failed admin call: the server's own message, or how to get one. */
export function cliMessage(err: AdminError): string {
  return err.code === CLIENT_ERRORS.unreachable ? `${err.message} Is "npx tollgate serve" still running?` : err.message;
}
