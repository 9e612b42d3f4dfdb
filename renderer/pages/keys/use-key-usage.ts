import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { KeyUsageView } from '../../../gateway/contract/admin/index.js';
import { admin } from '../../lib/api.js';
import { qk } from '../../lib/queries.js';

/** The period the Keys page shows spend over: today and the 29 days before, in the person's days. */
export const USAGE_DAYS = 30;

/**
 * Each key's last use and spend per day (GET /api/keys/usage), by key name. New log rows refresh
 * it (lib/live.ts, at most once a second); the poll is the fallback for a stream that is down.
 */
export function useKeyUsage() {
  const q = useQuery({
    queryKey: qk.keyUsage,
    queryFn: ({ signal }) =>
      admin.call('getKeyUsage', { query: { days: USAGE_DAYS, tz: -new Date().getTimezoneOffset() }, signal }),
    refetchInterval: 60_000,
  });
  const byName = useMemo(() => new Map<string, KeyUsageView>(q.data?.keys.map((k) => [k.name, k])), [q.data]);
  return { byName, since: q.data?.since, isPending: q.isPending, error: q.error };
}

export type KeyUsage = ReturnType<typeof useKeyUsage>;
