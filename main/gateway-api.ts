/**
 * Every call main makes to the gateway's admin API, in one place, on the typed admin client
 * (gateway/contract/admin/client.ts, docs/admin-api.md), and the live event stream through its reader
 * beside the client (events-client.ts there).
 */
import {
  AdminClient,
  AdminError,
  type AdminEvent,
  adminEvents,
  bearer,
  type CallArgs,
  CLIENT_ERRORS,
  type ConnectionsView,
  type KeyView,
  type LineView,
  type LogEntry,
  type LoginCodeView,
  type Reply,
  type RouteName,
  type StatusView,
  type WalletView,
} from '../gateway/contract/admin/index.js';

export { AdminError };
export type { AdminEvent, ConnectionsView, KeyView, LineView, LogEntry, StatusView, WalletView };

export class GatewayApi {
  private readonly client: AdminClient;

  constructor(
    readonly url: string,
    token: string,
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
      if (signal.aborted && !(err instanceof AdminError))
        throw new AdminError(
          0,
          CLIENT_ERRORS.unreachable,
          `The gateway at ${this.url} did not answer within ${timeoutMs} ms.`,
        );
      throw err;
    }
  }

  status(timeoutMs?: number): Promise<StatusView> {
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

  /** Pauses or resumes the model API; resolves to the gateway's status after the change. */
  setPaused(paused: boolean): Promise<StatusView> {
    return this.call(paused ? 'pauseGateway' : 'resumeGateway');
  }

  /** A one-time login URL for the console window. */
  sessionCode(): Promise<LoginCodeView> {
    return this.call('createLoginCode');
  }

  /** Which coding tools point at this gateway (`tollgate connect --status`). */
  connections(): Promise<ConnectionsView> {
    return this.call('connectStatus');
  }

  /** The live event stream (`GET /api/events`), until it ends or `signal` aborts it. */
  events(signal: AbortSignal): AsyncGenerator<AdminEvent> {
    return adminEvents(this.client, signal);
  }
}
