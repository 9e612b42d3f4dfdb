/**
 * The usage log's one sort: by time, both ways, in the server's own order. The log is paged by the
 * server (`GET /api/logs`: newest first with `before`, oldest first with `after`), so only the order
 * the server pages in can be honest: sorting the rows loaded so far by cost or model would misstate
 * a log of a million rows (the top of "most expensive" would be the most expensive of the last few
 * hundred). The other columns are therefore plain headers, and the filters narrow the log instead.
 * The order is held in the URL (`order=oldest`; newest first without it), beside the filters.
 */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import type { LogOrder } from '../../lib/log-pages.js';
import { useQueryUpdate } from '../../lib/query-update.js';

export function useLogOrder(): [LogOrder, (order: LogOrder) => void] {
  const [params] = useSearchParams();
  const update = useQueryUpdate();
  const order: LogOrder = params.get('order') === 'oldest' ? 'oldest' : 'newest';
  const set = useCallback(
    (next: LogOrder) =>
      update((query) => {
        if (next === 'oldest') query.set('order', 'oldest');
        else query.delete('order');
      }),
    [update],
  );
  return [order, set];
}

/** The Time column's header: a button that turns the server's order round, marked as the sort. */
export function TimeHeader({ order, onOrder }: { order: LogOrder; onOrder(order: LogOrder): void }) {
  return (
    <span role="columnheader" className="col-time sortable" aria-sort={order === 'newest' ? 'descending' : 'ascending'}>
      <button
        type="button"
        className="sort-button"
        title={order === 'newest' ? 'Newest first: show the oldest first' : 'Oldest first: show the newest first'}
        onClick={() => onOrder(order === 'newest' ? 'oldest' : 'newest')}
      >
        Time
        <span className="sort-mark sorted" aria-hidden="true">
          {order === 'newest' ? '▼' : '▲'}
        </span>
      </button>
    </span>
  );
}
