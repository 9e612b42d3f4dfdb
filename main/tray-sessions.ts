/**
 * The tray's agent sessions (docs/sessions.md): each active session with what it has cost so far,
 * and each paused one marked with its guard, with Resume (and Resume raising its cap by a round
 * amount, for a key with a session cap) and its page in the console. Pure: built from the sessions
 * the app state keeps (state.ts) and the clock. Unit-tested in test/main/tray-sessions.test.ts.
 */
import { usd } from '../gateway/contract/money.js';
import { TOOL_NAMES } from '../gateway/contract/sessions.js';
import type { SessionView } from '../gateway/contract/admin/index.js';
import type { MenuItem } from './tray-menu.js';

/** A session without a request for this long is idle, as the gateway counts it (GET /api/sessions). */
export const ACTIVE_MS = 5 * 60_000;
/** What "Resume, adding …" offers for a capped session, in micro-USD. */
export const RESUME_ADDS = [1_000_000, 5_000_000];

const GUARDS: Record<string, string> = {
  'session-cap': 'session cap',
  loop: 'loop guard',
  'repeated-body': 'repeated request',
  budget: 'budget window',
};

/** A session id as a menu shows it: long ids (UUIDs) cut to their first 12 characters. */
function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

/** The console's page of one session (its hash route). */
export function sessionPage(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}

/** Paused sessions, and those with a request in the last ACTIVE_MS; paused first, then latest activity. */
export function traySessions(sessions: SessionView[], now: number): SessionView[] {
  const shown = sessions.filter((s) => s.state === 'paused' || (s.state === 'active' && now - s.lastTs < ACTIVE_MS));
  const rank = (s: SessionView): number => (s.state === 'paused' ? 0 : 1);
  return [...shown].sort((a, b) => rank(a) - rank(b) || b.lastTs - a.lastTs);
}

function label(s: SessionView): string {
  const who = [TOOL_NAMES[s.tool], s.project ?? s.keyName].filter(Boolean).join(', ');
  const cap = s.capMicro !== null ? ` of ${usd(s.capMicro)}` : '';
  const head = `${shortId(s.id)} (${who}): ${usd(s.costMicro)}${cap}`;
  return s.state === 'paused' ? `Paused by the ${GUARDS[s.pause?.guard ?? ''] ?? 'guard'}: ${head}` : head;
}

function pausedItems(s: SessionView): MenuItem[] {
  const items: MenuItem[] = [];
  if (s.pause)
    items.push({
      type: 'label',
      label: s.pause.reason.length > 120 ? `${s.pause.reason.slice(0, 119)}…` : s.pause.reason,
    });
  items.push({ type: 'action', label: 'Resume', action: { kind: 'resume-session', id: s.id }, enabled: true });
  if (s.capMicro !== null)
    for (const addMicro of RESUME_ADDS)
      items.push({
        type: 'action',
        label: `Resume, raising its cap by ${usd(addMicro)}`,
        action: { kind: 'resume-session', id: s.id, addMicro },
        enabled: true,
      });
  items.push({
    type: 'action',
    label: 'Open in console',
    action: { kind: 'open-console', page: sessionPage(s.id) },
    enabled: true,
  });
  return items;
}

/** The menu's sessions part: nothing when no session is active or paused. */
export function sessionItems(sessions: SessionView[], now: number): MenuItem[] {
  const shown = traySessions(sessions, now);
  if (shown.length === 0) return [];
  const paused = shown.filter((s) => s.state === 'paused').length;
  const items: MenuItem[] = [
    { type: 'label', label: paused > 0 ? `Agent sessions (${paused} paused)` : 'Agent sessions' },
  ];
  for (const s of shown)
    items.push(
      s.state === 'paused'
        ? { type: 'submenu', label: label(s), items: pausedItems(s) }
        : { type: 'action', label: label(s), action: { kind: 'open-console', page: sessionPage(s.id) }, enabled: true },
    );
  return items;
}
