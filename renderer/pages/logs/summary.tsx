import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { LogFilter } from '../../../gateway/contract/admin/index.js';
import { admin } from '../../lib/api.js';
import { compact } from '../../lib/format.js';
import { qk, useStatus } from '../../lib/queries.js';
import { Usd } from '../../components/money.js';
import { Skeleton } from '../../components/skeleton.js';

/**
 * What the whole filter adds up to, computed by the gateway in SQL (GET /api/logs/summary), not
 * from the rows loaded so far. Fetched again whenever a newer row reaches the log.
 */
export function LogSummary({ filter, newestId }: { filter: LogFilter; newestId: number | undefined }) {
  const summary = useQuery({
    queryKey: qk.logSummary(filter),
    queryFn: ({ signal }) => admin.call('getLogSummary', { query: filter, signal }),
    staleTime: Infinity,
  });
  const { refetch } = summary;
  useEffect(() => {
    if (newestId !== undefined) void refetch();
  }, [newestId, refetch]);
  const status = useStatus();
  const refused = status.data?.unauthenticatedRequests ?? 0;
  const s = summary.data;
  // Until the gateway has counted, a grey bar: "0 requests" or "$0.00" would be a wrong answer.
  if (!s)
    return (
      <span className="log-summary" aria-busy="true" data-testid="log-summary-loading">
        <Skeleton width="280px" />
        <span className="sr-only">Counting the requests of this filter…</span>
      </span>
    );
  return (
    <span className="log-summary" data-testid="log-summary">
      <strong>{s.requests.toLocaleString('en-US')}</strong> {s.requests === 1 ? 'request' : 'requests'}
      {s.errors > 0 ? <span className="bad-text"> · {s.errors.toLocaleString('en-US')} failed</span> : null}
      <span title={`${s.inputTokens.toLocaleString('en-US')} in, ${s.outputTokens.toLocaleString('en-US')} out`}>
        {' '}
        · {compact(s.inputTokens)} in / {compact(s.outputTokens)} out
      </span>{' '}
      ·{' '}
      <strong>
        <Usd micro={s.costMicro} testId="log-summary-cost" />
      </strong>
      {refused > 0 ? (
        <span
          className="muted"
          title="Requests with a missing or wrong key are refused before they reach a model and write no row; this counts them since the gateway started."
        >
          {' '}
          · {refused.toLocaleString('en-US')} refused for a bad key (not logged)
        </span>
      ) : null}
    </span>
  );
}
