/** The Overview's view (range.ts) as the page's URL holds it, and a setter that writes one part of it. */
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { useQueryUpdate } from '../../lib/query-update.js';
import { viewOf, type OverviewView } from './range.js';

/** The view in the URL, and a setter that writes one part of it (replacing the history entry). */
export function useOverviewView(): [OverviewView, (patch: Partial<OverviewView>) => void] {
  const [params] = useSearchParams();
  const update = useQueryUpdate();
  const text = params.toString();
  const view = useMemo(() => viewOf(new URLSearchParams(text)), [text]);
  const set = useCallback(
    (patch: Partial<OverviewView>) =>
      update((query) => {
        for (const [k, v] of Object.entries(patch)) {
          if (v) query.set(k, v);
          else query.delete(k);
        }
      }),
    [update],
  );
  return [view, set];
}
