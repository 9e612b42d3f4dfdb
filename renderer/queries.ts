/**
 * Server state: one TanStack Query hook per admin resource, so screens share cache and refetching.
 * Wallet, keys and lines are kept current by the event stream (live.ts); the slow poll is only a
 * fallback for a stream that cannot connect.
 */
import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { api } from './api.js';
import { useToast } from './components/toast.js';

export const qk = {
  status: ['status'],
  wallet: ['wallet'],
  keys: ['keys'],
  lines: ['lines'],
  presets: ['presets'],
  models: ['models'],
  groups: ['groups'],
  logs: ['logs'],
} as const satisfies Record<string, QueryKey>;

const FALLBACK_POLL = 30_000;

export const useStatus = () => useQuery({ queryKey: qk.status, queryFn: api.status, staleTime: 60_000 });
export const useWallet = () => useQuery({ queryKey: qk.wallet, queryFn: api.wallet, refetchInterval: FALLBACK_POLL });
export const useKeys = () => useQuery({ queryKey: qk.keys, queryFn: api.keys, refetchInterval: FALLBACK_POLL });
export const useLines = () => useQuery({ queryKey: qk.lines, queryFn: api.lines, refetchInterval: FALLBACK_POLL });
export const usePresets = () => useQuery({ queryKey: qk.presets, queryFn: api.presets, staleTime: Infinity });
export const useModels = () => useQuery({ queryKey: qk.models, queryFn: api.models, staleTime: 30_000 });
export const useGroups = () => useQuery({ queryKey: qk.groups, queryFn: api.groups, staleTime: 30_000 });

/**
 * A mutation that refreshes the given resources when it succeeds and reports failures as a toast
 * (the gateway's own message: it says what to do).
 */
export function useAction<A, R>(fn: (arg: A) => Promise<R>, invalidates: readonly QueryKey[], done?: (result: R, arg: A) => string | void) {
  const qc = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: fn,
    onSuccess: async (result, arg) => {
      await Promise.all(invalidates.map((queryKey) => qc.invalidateQueries({ queryKey })));
      const message = done?.(result, arg);
      if (message) toast.show(message);
    },
    onError: (err) => toast.show((err as Error).message, 'error'),
  });
}
