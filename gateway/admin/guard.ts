/**
 * Who may use the admin API: requests addressed to a loopback host name (a DNS-rebinding page
 * sends its own domain as Host) and not sent cross-origin by a browser (CSRF).
 */
import { isLoopbackHost } from '../contract/loopback.js';

/**
 * A Host header is a name or an address, then an optional port, and nothing else: `[::1]evil.com`
 * or `127.0.0.1.evil.com` name another host. Whether the host is loopback is the contract's one
 * answer (contract/loopback.ts): a gateway started with `--host 127.0.0.2` is addressed as such.
 */
const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[^:[\]@/\s]+)(?::\d{1,5})?$/;

export function hostIsLoopback(hostHeader: string | undefined): boolean {
  const m = hostHeader === undefined ? null : HOST_HEADER.exec(hostHeader);
  return m !== null && isLoopbackHost(m[1]!);
}

/**
 * The peer must be on this machine too: with the gateway bound to a LAN address, a neighbour
 * could otherwise send `Host: localhost` itself. Fastify's inject() has no socket address.
 */
export function remoteIsLoopback(address: string | undefined): boolean {
  return address === undefined || isLoopbackHost(address);
}

/** A browser request is allowed only from the gateway's own origin (the console it serves). */
export function originAllowed(
  origin: string | undefined,
  secFetchSite: string | undefined,
  hostHeader: string | undefined,
): boolean {
  if (secFetchSite !== undefined && secFetchSite !== 'same-origin' && secFetchSite !== 'none') return false;
  if (origin === undefined) return true;
  try {
    const o = new URL(origin);
    return o.protocol === 'http:' && o.host === hostHeader && hostIsLoopback(o.host);
  } catch {
    return false;
  }
}
