/**
 * The typed admin API client, derived from the route table: `call('createKey', { body })` returns
 * the route's reply type, and checks the reply against the route's schema before handing it over,
 * so a server that breaks its contract is caught here rather than deep in a caller.
 *
 * It runs in Node and in a browser alike (global fetch, no Node APIs): the CLI, the tests and the
 * console share it. It uses TypeBox's Value checker, not its compiler, because a compiled checker
 * needs `new Function`, which a strict Content-Security-Policy forbids.
 */
import { Value } from '@sinclair/typebox/value';
import { ADMIN_ROUTES, successStatus, type CallInput, type Reply, type RouteName } from './routes.js';
import { ErrorBody } from './views.js';
import { AdminError } from './errors.js';

export interface AdminClientOptions {
  /**
   * Where the gateway listens, e.g. http://127.0.0.1:4141 (the routes add /api/…); '' in a page the
   * gateway itself serves, so requests go to the page's own origin.
   */
  baseUrl: string;
  /** Sent with every request: the CLI and the tests send the admin token (see `bearer`). */
  headers?: Readonly<Record<string, string>>;
  /** fetch's credentials mode, for a browser that authenticates with a session cookie. */
  credentials?: RequestInit['credentials'];
  /** Gives a call up after this many ms, as `unreachable` (the desktop app's 10 s); no limit when absent. */
  timeoutMs?: number;
}

/** The admin token as the Authorization header. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export interface CallOptions {
  /** Cancels the call, e.g. when the screen that asked has gone: it rejects with fetch's AbortError. */
  signal?: AbortSignal;
  /** This call's own time limit, in place of the client's `timeoutMs`. */
  timeoutMs?: number;
}

/** A route that takes nothing may be called without an input. */
export type CallArgs<N extends RouteName> =
  object extends CallInput<N> ? [input?: CallInput<N> & CallOptions] : [input: CallInput<N> & CallOptions];

/** Errors the client finds itself, beside the server's own codes (docs/admin-api.md). */
export const CLIENT_ERRORS = {
  /** No answer: the gateway is not running there, or the network failed. Status 0. */
  unreachable: 'unreachable',
  /** An answer that is not the route's contract: not JSON, wrong status or wrong shape. */
  badReply: 'bad_reply',
} as const;

export class AdminClient {
  constructor(readonly options: AdminClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** Calls one route; resolves to its reply, or rejects with an AdminError (status, code, message). */
  async call<N extends RouteName>(name: N, ...[input]: CallArgs<N>): Promise<Reply<N>> {
    const route = ADMIN_ROUTES[name];
    const url =
      this.options.baseUrl.replace(/\/+$/, '') + fillPath(route.path, input?.params) + queryString(input?.query);
    const timeoutMs = input?.timeoutMs ?? this.options.timeoutMs;
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signals = [input?.signal, timeout].filter((s) => s !== undefined);
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: route.method,
        headers: {
          ...this.options.headers,
          ...(input?.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: input?.body === undefined ? null : JSON.stringify(input.body),
        ...(this.options.credentials === undefined ? {} : { credentials: this.options.credentials }),
        ...(signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }),
      });
      text = await res.text();
    } catch (err) {
      if (input?.signal?.aborted) throw err;
      const base = this.options.baseUrl;
      const message = timeout?.aborted
        ? `The gateway at ${base} did not answer within ${timeoutMs} ms.`
        : `Cannot reach the Tollgate gateway at ${base}.`;
      throw new AdminError(0, CLIENT_ERRORS.unreachable, message, { cause: err });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new AdminError(
        res.status,
        CLIENT_ERRORS.badReply,
        `The gateway answered ${res.status} with a body that is not JSON.`,
      );
    }
    if (!res.ok) {
      if (Value.Check(ErrorBody, data)) throw new AdminError(res.status, data.error.code, data.error.message);
      throw new AdminError(res.status, CLIENT_ERRORS.badReply, text);
    }
    if (res.status !== successStatus(route)) {
      throw new AdminError(
        res.status,
        CLIENT_ERRORS.badReply,
        `${route.method} ${route.path} answered ${res.status}; the admin contract says ${successStatus(route)}.`,
      );
    }
    if (!Value.Check(route.reply, data)) {
      const first = Value.Errors(route.reply, data).First();
      const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown difference';
      throw new AdminError(
        res.status,
        CLIENT_ERRORS.badReply,
        `The reply of ${route.method} ${route.path} does not match the admin contract (${where}).`,
      );
    }
    return data;
  }
}

/** `/api/keys/:name` with `{name: 'a/b'}` → `/api/keys/a%2Fb`. */
function fillPath(path: string, params: object | undefined): string {
  const values = new Map(Object.entries(params ?? {}));
  return path.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(String(values.get(key))));
}

function queryString(query: object | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : '';
}
