/**
 * Server state: one TanStack Query hook per admin resource, so screens share cache and refetching,
 * and `qk`, the one factory of query keys (a key written out anywhere else is a cache nobody
 * invalidates). Wallet, keys and lines are kept current by the event stream (live.ts); the slow
 * poll is only a fallback for a stream that cannot connect. Every query calls the typed client,
 * `admin.call(route, …)`, and passes on TanStack's signal so a query that is dropped stops its request.
 */
import { useQuery, type QueryKey } from '@tanstack/react-query';
import type { LogFilter, SessionsQuery, StatsQuery, StatsTopQuery } from '../../gateway/contract/admin/index.js';
import { admin } from './api.js';
import type { LogOrder } from './log-pages.js';

export const qk = {
  status: ['status'],
  wallet: ['wallet'],
  walletTransactions: ['wallet', 'transactions'],
  keys: ['keys'],
  /** Each key's last use and spend per day (GET /api/keys/usage). */
  keyUsage: ['keys', 'usage'],
  lines: ['lines'],
  presets: ['presets'],
  keyStorage: ['lines', 'key-storage'],
  lineUsage: ['lines', 'usage'],
  models: ['models'],
  groups: ['groups'],
  /** Every query of the usage log (the pages below start with it). */
  logs: ['logs'],
  recentLogs: ['logs', 'recent'],
  /** Every filter's pages of the log (lib/log-cache.ts keeps them whole). */
  logPagesAll: ['logs', 'pages'],
  /** One filter's pages in one of the server's orders (newest first unless said). */
  logPages: (filter: LogFilter, order: LogOrder = 'newest') =>
    order === 'newest' ? ['logs', 'pages', filter] : ['logs', 'pages', filter, order],
  /** The count, tokens and cost of everything a filter matches (GET /api/logs/summary). */
  logSummary: (filter: LogFilter) => ['logs', 'summary', filter],
  requestBody: (requestId: string) => ['logs', 'body', requestId],
  /** The usage figures (GET /api/stats, /api/stats/top); without a query, all of them. */
  stats: (q?: StatsQuery) => (q === undefined ? ['stats'] : ['stats', 'buckets', q]),
  statsTop: (q: StatsTopQuery) => ['stats', 'top', q],
  settings: ['settings'],
  connections: ['connections'],
  snippets: (model: string) => ['connect', 'snippets', model],
  /** Every query of agent sessions (lists and details start with it). */
  sessions: ['sessions'],
  /** Every filter's list of sessions (use-live-sessions.ts patches them all). */
  sessionLists: ['sessions', 'list'],
  sessionList: (q: SessionsQuery) => ['sessions', 'list', q],
  session: (id: string) => ['sessions', 'detail', id],
} as const satisfies Record<string, QueryKey | ((...args: never[]) => QueryKey)>;

const FALLBACK_POLL = 30_000;

export const useStatus = () =>
  useQuery({ queryKey: qk.status, queryFn: ({ signal }) => admin.call('getStatus', { signal }), staleTime: 60_000 });
export const useWallet = () =>
  useQuery({
    queryKey: qk.wallet,
    queryFn: ({ signal }) => admin.call('getWallet', { signal }),
    refetchInterval: FALLBACK_POLL,
  });
export const useWalletTransactions = () =>
  useQuery({
    queryKey: qk.walletTransactions,
    queryFn: async ({ signal }) =>
      (await admin.call('listWalletTransactions', { query: { limit: 100 }, signal })).transactions,
  });
export const useKeys = () =>
  useQuery({
    queryKey: qk.keys,
    queryFn: async ({ signal }) => (await admin.call('listKeys', { signal })).keys,
    refetchInterval: FALLBACK_POLL,
  });
export const useLines = () =>
  useQuery({
    queryKey: qk.lines,
    queryFn: async ({ signal }) => (await admin.call('listLines', { signal })).lines,
    refetchInterval: FALLBACK_POLL,
  });
export const usePresets = () =>
  useQuery({
    queryKey: qk.presets,
    queryFn: async ({ signal }) => (await admin.call('listPresets', { signal })).presets,
    staleTime: Infinity,
  });
export const useModels = () =>
  useQuery({
    queryKey: qk.models,
    queryFn: async ({ signal }) => (await admin.call('listModels', { signal })).models,
    staleTime: 30_000,
  });
export const useGroups = () =>
  useQuery({
    queryKey: qk.groups,
    queryFn: async ({ signal }) => (await admin.call('listGroups', { signal })).groups,
    staleTime: 30_000,
  });
export const useSettings = () =>
  useQuery({
    queryKey: qk.settings,
    queryFn: ({ signal }) => admin.call('getSettings', { signal }),
    staleTime: 30_000,
  });
export const useConnections = () =>
  useQuery({ queryKey: qk.connections, queryFn: ({ signal }) => admin.call('connectStatus', { signal }) });
/** Whether a line's key can go to the OS keychain here: asked with the Lines page, before any dialog opens. */
export const useKeyStorage = () =>
  useQuery({
    queryKey: qk.keyStorage,
    queryFn: ({ signal }) => admin.call('keyStorage', { signal }),
    staleTime: 60_000,
  });
/** Each line's last day (requests, failures, median latency, last failure); follows new log rows (live.ts). */
export const useLineUsage = () =>
  useQuery({
    queryKey: qk.lineUsage,
    queryFn: ({ signal }) => admin.call('getLineUsage', { signal }),
    refetchInterval: FALLBACK_POLL,
  });
/** Agent sessions, latest activity first; kept current by the `session` event while the page is open. */
export const useSessions = (q: SessionsQuery) =>
  useQuery({
    queryKey: qk.sessionList(q),
    queryFn: async ({ signal }) => (await admin.call('listSessions', { query: q, signal })).sessions,
    refetchInterval: FALLBACK_POLL,
  });
export const useSession = (id: string) =>
  useQuery({
    queryKey: qk.session(id),
    queryFn: ({ signal }) => admin.call('getSession', { params: { id }, signal }),
    refetchInterval: FALLBACK_POLL,
  });
