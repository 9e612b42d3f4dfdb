import type { IncomingHttpHeaders } from 'node:http';
import { Agent, errors as undiciErrors } from 'undici';
import { GatewayError } from '../core/errors.js';
import type { Timeouts } from '../store/types.js';

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

/** Reasons an exchange is aborted from our side, carried as the AbortSignal's reason. */
export class ClientClosedError extends Error {
  constructor() {
    super('client closed the connection');
  }
}
export class TotalTimeoutError extends Error {
  constructor(ms: number) {
    super(`upstream took longer than ${ms} ms in total`);
  }
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

/** Maps a network-level failure (before or during the body) to what the client is told. */
export function upstreamFailure(err: unknown, signal?: AbortSignal): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof ClientClosedError) return new GatewayError('invalid_request', 'Client closed the connection.', { code: 'client_closed', status: 499 });
  const reason: unknown = signal?.aborted ? signal.reason : undefined;
  if (reason instanceof TotalTimeoutError) return new GatewayError('upstream_timeout', `Upstream timeout: ${reason.message}.`, { code: 'upstream_timeout' });
  if (reason instanceof ClientClosedError) return new GatewayError('invalid_request', 'Client closed the connection.', { code: 'client_closed', status: 499 });
  if (err instanceof undiciErrors.HeadersTimeoutError) {
    return new GatewayError('upstream_timeout', 'Upstream timeout: no response from the upstream within the first-byte timeout.', { code: 'upstream_timeout' });
  }
  if (err instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('upstream_timeout', 'Upstream timeout: the upstream stopped sending in the middle of its response.', { code: 'upstream_idle_timeout' });
  }
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('upstream_timeout', 'Upstream timeout: could not connect to the upstream in time.', { code: 'upstream_connect_timeout' });
  }
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EAI_AGAIN') {
    return new GatewayError('upstream_unavailable', `Upstream unavailable: cannot connect to the upstream (${code}).`, { code: 'upstream_unreachable' });
  }
  return new GatewayError('upstream_error', `Upstream error: the connection to the upstream failed (${code ?? (err as Error).message}).`, {
    code: 'upstream_connection_error',
  });
}

/**
 * Maps an upstream HTTP error status to the client's status. The upstream's own message is kept
 * where it helps the client (a 400 about its request) but never when it concerns the line's
 * credential, which is Tollgate's business, not the client's.
 */
export function upstreamStatusError(status: number, upstreamMessage: string | undefined, retryAfterHeader: string | undefined): GatewayError {
  const detail = upstreamMessage ? `: ${upstreamMessage.slice(0, 500)}` : '';
  if (status === 429) {
    const retryAfter = parseRetryAfter(retryAfterHeader) ?? 1;
    return new GatewayError('rate_limit', `Upstream rate limit${detail}`, { code: 'upstream_rate_limited', retryAfter });
  }
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_error', `The upstream rejected this line's credential (HTTP ${status}). Check the line's API key.`, {
      code: 'upstream_auth_failed',
    });
  }
  if (status === 408 || status === 504) return new GatewayError('upstream_timeout', `Upstream timeout (HTTP ${status})${detail}`, { code: 'upstream_timeout' });
  if (status === 503 || status === 529) return new GatewayError('upstream_unavailable', `Upstream unavailable (HTTP ${status})${detail}`, { code: 'upstream_unavailable' });
  if (status >= 500) return new GatewayError('upstream_error', `Upstream error (HTTP ${status})${detail}`, { code: 'upstream_error' });
  if (status === 404) {
    return new GatewayError('upstream_error', `The upstream answered 404${detail}. Check the line's base URL and model id.`, { code: 'upstream_not_found' });
  }
  return new GatewayError('invalid_request', `Upstream rejected the request (HTTP ${status})${detail}`, { code: 'upstream_rejected', status });
}

function parseRetryAfter(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs) && secs >= 0) return Math.ceil(secs);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - Date.now()) / 1000));
}
