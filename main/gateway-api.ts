/**
 * Every call main makes to the gateway's admin API, in one place, on the typed admin client
 * (gateway/admin/client.ts, docs/admin-api.md). Three routes the desktop uses are not in the
 * admin contract yet (console login, live events, pause): they are called here by hand until the
 * gateway declares them, with the shapes agreed for them.
 */
import { AdminClient, AdminError, bearer, CLIENT_ERRORS, type CallArgs } from '../gateway/admin/client.js';
import type { KeyView, LineView, LogEntry, Reply, RouteName, StatusView, WalletView } from '../gateway/admin/contract.js';

export { AdminError };
export type { KeyView, LineView, LogEntry, WalletView };

/** `/api/status`, plus `paused` where the gateway can pause (undefined where it cannot). */
export type GatewayStatus = StatusView & { paused?: boolean };

/** What `POST /api/session/code` gives: a one-time login URL for the console. */
export interface SessionCode {
  code: string;
  url: string;
  expiresAt: string;
}

export class GatewayApi {
  private readonly client: AdminClient;

  constructor(
    readonly url: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.client = new AdminClient({ baseUrl: url, headers: bearer(token) });
  }

  /** One route of the contract, given up after `timeoutMs` as unreachable. */
  private async call<N extends RouteName>(name: N, input: object = {}, timeoutMs = this.timeoutMs): Promise<Reply<N>> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await this.client.call(name, ...([{ ...input, signal }] as unknown as CallArgs<N>));
    } catch (err) {
      if (signal.aborted && !(err instanceof AdminError)) throw new AdminError(0, CLIENT_ERRORS.unreachable, `The gateway at ${this.url} did not answer within ${timeoutMs} ms.`);
      throw err;
    }
  }

  /** A route outside the contract (see above): the same errors as the typed client's. */
  private async raw<T>(method: 'GET' | 'POST', path: string): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url + path, { method, headers: bearer(this.token), signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new AdminError(0, CLIENT_ERRORS.unreachable, `Cannot reach the Tollgate gateway at ${this.url}.`, { cause: err });
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new AdminError(res.status, CLIENT_ERRORS.badReply, `The gateway answered ${res.status} with a body that is not JSON.`);
    }
    const error = (data as { error?: { code?: string; message?: string } }).error;
    if (!res.ok) throw new AdminError(res.status, error?.code ?? CLIENT_ERRORS.badReply, error?.message ?? `HTTP ${res.status}`);
    return data as T;
  }

  status(timeoutMs?: number): Promise<GatewayStatus> {
    return this.call('getStatus', {}, timeoutMs);
  }

  wallet(): Promise<WalletView> {
    return this.call('getWallet');
  }

  async keys(): Promise<KeyView[]> {
    return (await this.call('listKeys')).keys;
  }

  async lines(): Promise<LineView[]> {
    return (await this.call('listLines')).lines;
  }

  async setKeyEnabled(name: string, enabled: boolean): Promise<KeyView> {
    return (await this.call(enabled ? 'enableKey' : 'disableKey', { params: { name } })).key;
  }

  /** Newest first; `before` pages backwards by id. */
  async logs(limit: number, before?: number): Promise<LogEntry[]> {
    return (await this.call('listLogs', { query: { limit, before } })).entries;
  }

  async setPaused(paused: boolean): Promise<void> {
    await this.raw('POST', paused ? '/api/gateway/pause' : '/api/gateway/resume');
  }

  sessionCode(): Promise<SessionCode> {
    return this.raw('POST', '/api/session/code');
  }

  /**
   * Opens the live event stream (Server-Sent Events). Resolves to the response, or to null when
   * this gateway has no event stream (an older `tollgate serve`): the caller then polls.
   */
  async events(signal: AbortSignal): Promise<Response | null> {
    const res = await fetch(this.url + '/api/events', { headers: { ...bearer(this.token), accept: 'text/event-stream' }, signal });
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new AdminError(res.status, CLIENT_ERRORS.badReply, `The gateway's event stream answered ${res.status}.`);
    }
    return res;
  }
}
