/**
 * Every call main makes to the gateway's admin API, in one place (docs/admin-api.md). When the
 * typed admin client lands, this module switches to it and nothing else in main/ changes.
 */
import type { KeyView, LineView, LogEntry, StatusView, WalletView } from '../gateway/admin/contract.js';

export type { KeyView, LineView, LogEntry, WalletView };

/** `/api/status`, plus `paused` where the gateway can pause (undefined where it cannot). */
export type GatewayStatus = StatusView & { paused?: boolean };

/** What `POST /api/session/code` gives: a one-time login URL for the console. */
export interface SessionCode {
  code: string;
  url: string;
  expiresAt: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST';

export class GatewayApi {
  constructor(
    readonly url: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
  ) {}

  private async call<T>(method: Method, path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ApiError(0, `Cannot reach the gateway at ${this.url}: ${(err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new ApiError(res.status, `The gateway answered ${res.status} with a body that is not JSON.`);
    }
    if (!res.ok) throw new ApiError(res.status, (parsed as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`);
    return parsed as T;
  }

  status(timeoutMs?: number): Promise<GatewayStatus> {
    return this.call('GET', '/api/status', undefined, timeoutMs);
  }

  wallet(): Promise<WalletView> {
    return this.call('GET', '/api/wallet');
  }

  async keys(): Promise<KeyView[]> {
    return (await this.call<{ keys: KeyView[] }>('GET', '/api/keys')).keys;
  }

  async lines(): Promise<LineView[]> {
    return (await this.call<{ lines: LineView[] }>('GET', '/api/lines')).lines;
  }

  async setKeyEnabled(name: string, enabled: boolean): Promise<KeyView> {
    return (await this.call<{ key: KeyView }>('POST', `/api/keys/${encodeURIComponent(name)}/${enabled ? 'enable' : 'disable'}`)).key;
  }

  /** Newest first; `before` pages backwards by id. */
  async logs(limit: number, before?: number): Promise<LogEntry[]> {
    const q = new URLSearchParams({ limit: String(limit), ...(before === undefined ? {} : { before: String(before) }) });
    return (await this.call<{ entries: LogEntry[] }>('GET', `/api/logs?${q.toString()}`)).entries;
  }

  async setPaused(paused: boolean): Promise<void> {
    await this.call('POST', paused ? '/api/gateway/pause' : '/api/gateway/resume');
  }

  sessionCode(): Promise<SessionCode> {
    return this.call('POST', '/api/session/code');
  }

  /**
   * Opens the live event stream (Server-Sent Events). Resolves to the response, or to null when
   * this gateway has no event stream (an older `tollgate serve`): the caller then polls.
   */
  async events(signal: AbortSignal): Promise<Response | null> {
    const res = await fetch(this.url + '/api/events', { headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' }, signal });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new ApiError(res.status, `The gateway's event stream answered ${res.status}.`);
    }
    return res;
  }
}
