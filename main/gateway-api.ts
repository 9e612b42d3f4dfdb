/**
 * main's client of the gateway's admin API: the contract's typed client (gateway/contract/admin/,
 * docs/admin-api.md) with the admin token, given up after 10 s as unreachable. Main calls routes by
 * their contract names, `api.call('listKeys')`, as the console and the CLI do, and follows the event
 * stream with the contract's reader, `adminEvents(api, signal)`.
 */
import { AdminClient, bearer } from '../gateway/contract/admin/index.js';

export const GATEWAY_TIMEOUT_MS = 10_000;

export function gatewayApi(url: string, token: string): AdminClient {
  return new AdminClient({ baseUrl: url, headers: bearer(token), timeoutMs: GATEWAY_TIMEOUT_MS });
}
