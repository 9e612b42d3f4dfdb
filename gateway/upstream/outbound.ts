/**
 * The admin side's own requests to the outside: a line's model list (`lines test`, `lines models`,
 * the model import, local presets) and a price file the user points at. Unlike the model path they
 * go to whatever a user or an upstream names, so each is held to three rules:
 *
 * - a request that carries a credential follows no redirect: a redirect names another URL, and the
 *   credential belongs to the line's base URL only (the answer is an error naming where it pointed);
 * - the answer is read up to a bound, never whole;
 * - a request that asks for it (`publicOnly`) reaches only public addresses, checked when the
 *   socket connects (so a name that resolves differently a second time gains nothing), unless the
 *   URL the user gave names the private host itself (`http://127.0.0.1:…`, `http://localhost:…`,
 *   `http://[::1]:…`); a redirect from elsewhere to such a host is refused.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch, type Response } from 'undici';

export class OutboundError extends Error {
  constructor(
    readonly code: 'redirect_refused' | 'private_address' | 'too_large' | 'bad_url',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundOptions {
  headers: Record<string, string>;
  /** True when the headers carry a credential: no redirect is followed then. */
  credentialed: boolean;
  /** The most bytes of the answer read; beyond it the request fails (OutboundError too_large). */
  maxBytes: number;
  timeoutMs: number;
  /** Refuse loopback, link-local and private addresses, but for a host the URL itself names literally. */
  publicOnly: boolean;
  /** Redirects followed when no credential is sent (each one checked like the first URL). */
  maxRedirects?: number;
  /** Certificate authorities TLS trusts beyond Node's own (the gateway's CA setting, upstream/trust.ts). */
  ca?: string[];
}

export interface OutboundAnswer {
  status: number;
  text: string;
  /** The URL that answered (after any redirects). */
  url: string;
}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2002::', 16],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

/** An IPv4 address inside an IPv6 one (`::ffff:7f00:1`), as dotted text; undefined when there is none. */
function mappedV4(ip: string): string | undefined {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Loopback, link-local, private, shared, multicast or unspecified: not a place a download may go unasked. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(ip);
  if (family === 4) return PRIVATE.check(ip, 'ipv4');
  if (family !== 6) return false;
  const v4 = mappedV4(ip);
  return v4 !== undefined ? PRIVATE.check(v4, 'ipv4') : PRIVATE.check(ip, 'ipv6');
}

/** A host the user named as a private place in the URL itself: an IP literal of one, or localhost. */
function namesPrivateHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || (isIP(h) !== 0 && isPrivateAddress(h));
}

/** A resolver for the agent's sockets: refuses names that resolve to a private address. */
function publicLookup(
  hostname: string,
  options: object,
  callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) {
      return callback(
        new OutboundError('private_address', `${hostname} resolves to ${bad.address}, a private or local address`),
        [],
      );
    }
    const all = (options as { all?: boolean }).all === true;
    if (all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

function checkUrl(url: URL, allowedHost: string | undefined, publicOnly: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundError('bad_url', `${url.protocol} URLs are not fetched (http or https only).`);
  if (url.username || url.password)
    throw new OutboundError('bad_url', 'A URL with a user name or password is refused.');
  if (!publicOnly || url.hostname === allowedHost) return;
  if (namesPrivateHost(url.hostname))
    throw new OutboundError('private_address', `${url.host} is a private or local address that was not asked for`);
}

async function readBounded(res: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += (chunk as Uint8Array).byteLength;
      if (size > maxBytes) {
        await res.body.cancel().catch(() => undefined);
        throw new OutboundError('too_large', `the answer is larger than ${Math.round(maxBytes / 1024)} KB`);
      }
      chunks.push(chunk as Uint8Array);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GETs `target` under the rules above. A redirect that is not followed comes back as an
 * OutboundError naming only the origin it pointed to (its path and query may hold anything).
 */
export async function outboundGet(target: URL, opts: OutboundOptions): Promise<OutboundAnswer> {
  const allowedHost = namesPrivateHost(target.hostname) ? target.hostname : undefined;
  const agent = new Agent({
    connect: { ...(opts.publicOnly ? { lookup: publicLookup as never } : {}), ...(opts.ca ? { ca: opts.ca } : {}) },
    // The answer is read to its bound at once; nothing is kept alive for later.
    pipelining: 0,
  });
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const hops = opts.credentialed ? 0 : (opts.maxRedirects ?? 0);
  let url = target;
  try {
    for (let hop = 0; ; hop++) {
      checkUrl(url, allowedHost, opts.publicOnly);
      const res = await undiciFetch(url, { headers: opts.headers, redirect: 'manual', signal, dispatcher: agent });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.body?.cancel().catch(() => undefined);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new OutboundError('redirect_refused', `${url.origin} answered a redirect to an invalid URL`);
        }
        if (opts.credentialed)
          throw new OutboundError(
            'redirect_refused',
            `${url.origin} answered HTTP ${res.status}, a redirect to ${next.origin}; not followed, because the credential goes only to the line's base URL (if that is the right address, make it the base URL)`,
          );
        if (hop >= hops)
          throw new OutboundError('redirect_refused', `${url.origin} redirected more than ${hops} times`);
        url = next;
        continue;
      }
      return { status: res.status, text: await readBounded(res, opts.maxBytes), url: url.href };
    }
  } catch (err) {
    // undici wraps the resolver's refusal in a TypeError('fetch failed') whose cause is ours.
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof OutboundError) throw cause;
    throw err;
  } finally {
    void agent.close().catch(() => undefined);
  }
}
