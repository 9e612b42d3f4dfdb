/**
 * Keeps the sessions in the query cache current while the Sessions page is open: each `session`
 * event (a request of the session settled, a warning, a pause, a resume) replaces that session in
 * every cached list whose filter it matches, in place of a refetch, and refreshes its detail; a new
 * usage-log row of a session refreshes that session's detail (its timeline gains the request).
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { SessionDetailView, SessionsQuery, SessionView } from '../../lib/api.js';
import { onLogEntry, onSessionEvent } from '../../lib/live.js';
import { qk } from '../../lib/queries.js';

/** Whether a session belongs in a list asked for with `q` (the server's filter, as GET /api/sessions applies it). */
export function matches(q: SessionsQuery, s: SessionView): boolean {
  if (q.key !== undefined && s.keyName !== q.key) return false;
  if (q.tool !== undefined && s.tool !== q.tool) return false;
  return q.active !== true || s.state === 'active';
}

/** The list with `s` in it (or out of it, if it no longer matches), latest activity first. */
export function mergeSession(list: SessionView[], q: SessionsQuery, s: SessionView): SessionView[] {
  const rest = list.filter((x) => x.id !== s.id);
  if (!matches(q, s)) return rest;
  const at = rest.findIndex((x) => x.lastTs <= s.lastTs);
  const next = at === -1 ? [...rest, s] : [...rest.slice(0, at), s, ...rest.slice(at)];
  return q.limit !== undefined ? next.slice(0, q.limit) : next;
}

function applySession(qc: QueryClient, s: SessionView): void {
  for (const [key, list] of qc.getQueriesData<SessionView[]>({ queryKey: qk.sessionLists })) {
    if (!list) continue;
    const q = key[2] as SessionsQuery;
    qc.setQueryData<SessionView[]>(key, mergeSession(list, q, s));
  }
  qc.setQueryData<SessionDetailView>(qk.session(s.id), (old) => (old ? { ...old, session: s } : old));
  void qc.invalidateQueries({ queryKey: qk.session(s.id) });
}

export function useLiveSessions(): void {
  const qc = useQueryClient();
  useEffect(() => {
    const offSession = onSessionEvent((d) => applySession(qc, d.session));
    const offLog = onLogEntry((e) => {
      if (e.session) void qc.invalidateQueries({ queryKey: qk.session(e.session) });
    });
    return () => {
      offSession();
      offLog();
    };
  }, [qc]);
}
