/**
 * Who may use the admin API: requests addressed to a loopback host name (a DNS-rebinding page
 * sends its own domain as Host) and not sent cross-origin by a browser (CSRF).
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function hostIsLoopback(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0]!;
  return LOOPBACK_HOSTS.has(host.toLowerCase());
}

/**
 * The peer must be on this machine too: with the gateway bound to a LAN address, a neighbour
 * could otherwise send `Host: localhost` itself. Fastify's inject() has no socket address.
 */
export function remoteIsLoopback(address: string | undefined): boolean {
  if (address === undefined) return true;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** A browser request is allowed only from the gateway's own origin (the console it serves). */
export function originAllowed(origin: string | undefined, secFetchSite: string | undefined, hostHeader: string | undefined): boolean {
  if (secFetchSite !== undefined && secFetchSite !== 'same-origin' && secFetchSite !== 'none') return false;
  if (origin === undefined) return true;
  try {
    const o = new URL(origin);
    return o.protocol === 'http:' && o.host === hostHeader && hostIsLoopback(o.host);
  } catch {
    return false;
  }
}
