import type { IncomingHttpHeaders } from 'node:http';
import { Agent } from 'undici';
import { upstreamFailure } from './errors.js';

/** A line's limits on one upstream request; a line may override each. */
export interface Timeouts {
  connectMs: number;
  /** From sending the request to the upstream's response headers. */
  firstByteMs: number;
  /** Longest silence between two chunks of a response body. */
  idleMs: number;
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 10_000,
  firstByteMs: 300_000,
  idleMs: 120_000,
  totalMs: 900_000,
};

export interface UpstreamCall {
  lineId: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeouts: Timeouts;
  signal: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: AsyncIterable<Uint8Array> & { text(): Promise<string>; destroy(err?: Error): unknown };
}

/**
 * `https://host/v1` + `/chat/completions`, keeping any path of the base URL. A query in `path`
 * (`:streamGenerateContent?alt=sse`) joins the base URL's own.
 */
export function endpoint(baseUrl: string, path: string): URL {
  const u = new URL(baseUrl);
  const [pathname, query] = path.split('?', 2) as [string, string | undefined];
  u.pathname = u.pathname.replace(/\/+$/, '') + pathname;
  if (query) for (const [k, v] of new URLSearchParams(query)) u.searchParams.set(k, v);
  return u;
}

/**
 * Pooled keep-alive HTTP client for upstreams: one undici Agent per line (its connect timeout is
 * a property of the pool), reused across requests.
 */
export class UpstreamClient {
  private readonly agents = new Map<string, { agent: Agent; connectMs: number }>();

  private agentFor(lineId: string, connectMs: number): Agent {
    const found = this.agents.get(lineId);
    if (found && found.connectMs === connectMs) return found.agent;
    void found?.agent.close();
    const agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connect: { timeout: connectMs } });
    this.agents.set(lineId, { agent, connectMs });
    return agent;
  }

  async send(call: UpstreamCall): Promise<UpstreamResponse> {
    const agent = this.agentFor(call.lineId, call.timeouts.connectMs);
    try {
      const res = await agent.request({
        origin: call.url.origin,
        path: call.url.pathname + call.url.search,
        method: 'POST',
        headers: call.headers,
        body: call.body,
        signal: call.signal,
        headersTimeout: call.timeouts.firstByteMs,
        bodyTimeout: call.timeouts.idleMs,
      });
      return { status: res.statusCode, headers: res.headers as IncomingHttpHeaders, body: res.body };
    } catch (err) {
      throw upstreamFailure(err, call.signal);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.agent.close()));
    this.agents.clear();
  }
}
