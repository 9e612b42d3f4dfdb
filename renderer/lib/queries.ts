/**
 * Server state: one TanStack Query hook per admin resource, so screens share cache and refetching.
 * Wallet, keys and lines are kept current by the event stream (live.ts); the slow poll is only a
 * fallback for a stream that cannot connect.
 */
import { useQuery, type QueryKey } from '@tanstack/react-query';
import { api } from './api.js';

export const qk = {
  status: ['status'],
  wallet: ['wallet'],
  keys: ['keys'],
  lines: ['lines'],
  presets: ['presets'],
  models: ['models'],
  groups: ['groups'],
  logs: ['logs'],
  settings: ['settings'],
  connections: ['connections'],
} as const satisfies Record<string, QueryKey>;

const FALLBACK_POLL = 30_000;

export const useStatus = () => useQuery({ queryKey: qk.status, queryFn: api.status, staleTime: 60_000 });
export const useWallet = () => useQuery({ queryKey: qk.wallet, queryFn: api.wallet, refetchInterval: FALLBACK_POLL });
export const useKeys = () => useQuery({ queryKey: qk.keys, queryFn: api.keys, refetchInterval: FALLBACK_POLL });
export const useLines = () => useQuery({ queryKey: qk.lines, queryFn: api.lines, refetchInterval: FALLBACK_POLL });
export const usePresets = () => useQuery({ queryKey: qk.presets, queryFn: api.presets, staleTime: Infinity });
export const useModels = () => useQuery({ queryKey: qk.models, queryFn: api.models, staleTime: 30_000 });
export const useGroups = () => useQuery({ queryKey: qk.groups, queryFn: api.groups, staleTime: 30_000 });
export const useSettings = () => useQuery({ queryKey: qk.settings, queryFn: api.settings, staleTime: 30_000 });
export const useConnections = () => useQuery({ queryKey: qk.connections, queryFn: api.connections });
