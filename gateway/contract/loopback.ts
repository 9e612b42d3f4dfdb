/**
 * Whether a host stays on this machine: the one answer for the admin guard (the Host header and the
 * peer's address), the bind address in the settings and on `tollgate serve --host`, where the CLI
 * and the desktop app may send the admin token, and where presets may use plain http.
 *
 * Loopback is `localhost` (with or without the root's trailing dot, any case), any address of
 * 127.0.0.0/8, `::1` (bare or in brackets, in any of its spellings) and an IPv4-mapped 127.x
 * address (`::ffff:127.0.0.1`, as a dual-stack socket reports an IPv4 peer). Not `*.localhost`:
 * whether such a name resolves to this machine is up to the resolver, not the name. Not `0.0.0.0`
 * or `::`: they mean every interface. Addresses are read by the WHATWG URL parser, the same in
 * Node and in a browser, so `127.1` or `[0:0:0:0:0:0:0:1]` count by what they are, and
 * `127.0.0.1.evil.com` or `[::1]evil.com` by what they are not.
 */
export function isLoopbackHost(host: string): boolean {
  const name = hostname(host);
  if (name === undefined) return false;
  if (name === 'localhost' || name === 'localhost.') return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(name)) return true;
  // The URL parser writes IPv6 compressed and lower-case, and a mapped IPv4 address in hex.
  return name === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name);
}

/** Whether a URL's host is loopback: `http://127.0.0.1:4141` is, `http://192.168.1.5:4141` is not. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** A host name or address as the URL parser normalises it; undefined for anything that is not one alone. */
function hostname(host: string): string | undefined {
  if (host === '' || /[\s/?#@\\%]/.test(host)) return undefined;
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    const u = new URL(`http://${bracketed}/`);
    return u.port === '' ? u.hostname : undefined;
  } catch {
    return undefined;
  }
}
