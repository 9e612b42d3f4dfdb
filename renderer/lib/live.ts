/**
 * The gateway's event stream (GET /api/events through the typed client's adminEvents), kept open
 * while the console is: the snapshot and each wallet, key and line event go straight into the
 * query cache, and new log rows into every cached page of the usage log they match (log-cache.ts). If the
 * stream drops (the gateway restarting), it reconnects; a lost session shows the login screen.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import {
  adminEvents,
  handleAdminEvent,
  type AdminEventData,
  type AdminEventHandlers,
} from '../../gateway/contract/admin/index.js';
import { admin, isLoggedOut, type KeyView, type LineView, type LogEntry } from './api.js';
import { addLiveEntry, catchUpAllLogs } from './log-cache.js';
import { qk } from './queries.js';

function upsert<T extends { id: string }>(list: T[] | undefined, item: T, keep: (t: T) => boolean): T[] | undefined {
  if (!list) return list;
  const rest = list.filter((x) => x.id !== item.id);
  if (!keep(item)) return rest;
  const at = list.findIndex((x) => x.id === item.id);
  if (at === -1) return [...list, item];
  return list.map((x) => (x.id === item.id ? item : x));
}

type LogListener = (entry: LogEntry) => void;
const logListeners = new Set<LogListener>();

/** Calls `fn` for each new usage-log row while the returned function has not been called. */
export function onLogEntry(fn: LogListener): () => void {
  logListeners.add(fn);
  return () => logListeners.delete(fn);
}

type SessionListener = (d: AdminEventData<'session'>) => void;
const sessionListeners = new Set<SessionListener>();

/** Calls `fn` for each `session` event (a session's request settled, a warning, a pause, a resume). */
export function onSessionEvent(fn: SessionListener): () => void {
  sessionListeners.add(fn);
  return () => sessionListeners.delete(fn);
}

let lastRefresh = 0;

/** The overview's recent rows and spend, the lines' day figures and the keys' last use and spend follow new requests, at most once a second under load. */
function refreshSummaries(qc: QueryClient): void {
  const now = Date.now();
  if (now - lastRefresh < 1000) return;
  lastRefresh = now;
  void qc.invalidateQueries({ queryKey: qk.recentLogs });
  void qc.invalidateQueries({ queryKey: qk.stats() });
  void qc.invalidateQueries({ queryKey: qk.lineUsage });
  void qc.invalidateQueries({ queryKey: qk.keyUsage });
}

/** What each event of the stream (ADMIN_EVENTS) does to the query cache. */
function handlers(qc: QueryClient): AdminEventHandlers {
  return {
    snapshot: (d) => {
      qc.setQueryData(qk.wallet, d.wallet);
      qc.setQueryData(qk.keys, d.keys);
      qc.setQueryData(qk.lines, d.lines);
      qc.setQueryData(qk.settings, d.settings);
      // The first event of every connection: rows logged while the stream was down come back.
      catchUpAllLogs(qc);
    },
    wallet: (d) => {
      qc.setQueryData(qk.wallet, d.wallet);
      void qc.invalidateQueries({ queryKey: qk.walletTransactions });
    },
    key: (d) => {
      qc.setQueryData<KeyView[]>(qk.keys, (old) => upsert(old, d.key, (k) => k.state !== 'deleted'));
    },
    line: (d) => {
      const removed = d.removed === true;
      qc.setQueryData<LineView[]>(qk.lines, (old) => upsert(old, d.line, () => !removed));
      // Which lines serve a model, and how each protocol reaches it, follow the lines.
      void qc.invalidateQueries({ queryKey: qk.models });
    },
    log: (d) => {
      addLiveEntry(qc, d.entry);
      for (const fn of logListeners) fn(d.entry);
      refreshSummaries(qc);
    },
    status: (d) => {
      qc.setQueryData(qk.status, d.status);
    },
    settings: (d) => {
      qc.setQueryData(qk.settings, d.settings);
    },
    session: (d) => {
      for (const fn of sessionListeners) fn(d);
    },
  };
}

/** Keeps the stream open for the life of the component (the layout). */
export function useLiveEvents(onLoggedOut: () => void): void {
  const qc = useQueryClient();
  useEffect(() => {
    const ac = new AbortController();
    const on = handlers(qc);
    const run = async (): Promise<void> => {
      while (!ac.signal.aborted) {
        try {
          for await (const e of adminEvents(admin, ac.signal)) handleAdminEvent(on, e);
        } catch (err) {
          if (ac.signal.aborted) return;
          if (isLoggedOut(err)) return onLoggedOut();
        }
        await new Promise((r) => window.setTimeout(r, 2000));
      }
    };
    void run();
    return () => ac.abort();
  }, [qc, onLoggedOut]);
}
