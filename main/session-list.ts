/**
 * Which agent sessions the tray keeps (state.ts), and how the list the gateway gives on connect
 * (`GET /api/sessions`) joins those the live event stream reported. Pure; unit-tested in
 * test/main/session-list.test.ts.
 */
import type { SessionView } from '../gateway/contract/admin/index.js';

/** The tray lists this many sessions at most. */
export const MAX_SESSIONS = 8;
/**
 * How many of the latest sessions the tray asks for on connect: its MAX_SESSIONS active or paused
 * ones are among them unless more than this many idle sessions were busier since.
 */
export const SESSIONS_ASKED = 100;

/** Paused first (they wait for the user), then the latest activity; idle sessions are not kept. */
export function keptSessions(sessions: readonly SessionView[]): SessionView[] {
  const rank = (s: SessionView): number => (s.state === 'paused' ? 0 : 1);
  return sessions
    .filter((s) => s.state !== 'idle')
    .sort((a, b) => rank(a) - rank(b) || b.lastTs - a.lastTs)
    .slice(0, MAX_SESSIONS);
}

/**
 * The sessions of a list asked for on connect, joined with those already known from events. A
 * session in both is taken from whichever saw a later request; at the same request the event's
 * (it may carry a pause or resume that happened while the list was on its way).
 */
export function joinSessions(known: readonly SessionView[], listed: readonly SessionView[]): SessionView[] {
  const byId = new Map(listed.map((s) => [s.id, s]));
  for (const s of known) {
    const other = byId.get(s.id);
    if (!other || s.lastTs >= other.lastTs) byId.set(s.id, s);
  }
  return keptSessions([...byId.values()]);
}
