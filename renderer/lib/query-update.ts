/**
 * Changes to the page's query (`#/logs?model=…`) that each start from the query as the last change
 * left it. React Router's own functional setter starts from the query of the last render, so two
 * changes made before React renders again (a second date typed while the first is still rendering
 * on a busy machine, a filter and the order set in one event) keep only the last. The console runs
 * under a hash router (main.tsx), whose navigations write the address at once: the address always
 * holds the latest query, whatever has rendered since.
 */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/** The query in the address now: what follows the `?` of its hash. */
export function currentQuery(): URLSearchParams {
  const hash = window.location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(at >= 0 ? hash.slice(at + 1) : '');
}

/** A function that edits the latest query in place and writes it back, replacing the history entry. */
export function useQueryUpdate(): (change: (query: URLSearchParams) => void) => void {
  const [, setParams] = useSearchParams();
  return useCallback(
    (change) => {
      const query = currentQuery();
      change(query);
      setParams(query, { replace: true });
    },
    [setParams],
  );
}
