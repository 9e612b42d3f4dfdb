/**
 * What the tray shows, as one value, and the reducer that keeps it current from the gateway's live
 * events and the supervisor's reports. Pure: tray-menu.ts, tray-icon.ts and notices.ts read it.
 */
import type {
  ConnectionsView,
  KeyView,
  LineView,
  SessionNoticeView,
  SessionView,
  SettingsView,
  WalletView,
} from '../gateway/contract/admin/index.js';
import { joinSessions, keptSessions } from './session-list.js';

/** One coding tool as `GET /api/connect` reports it. */
export type ToolConnection = ConnectionsView['tools'][number];

export type GatewayPhase =
  | { kind: 'starting' }
  /** `owned`: our own gateway process; false when attached to a `tollgate serve` for the same data dir. */
  | { kind: 'running'; url: string; owned: boolean }
  | { kind: 'restarting'; attempt: number; inMs: number; reason: string }
  /** Died `failures` times in a row without running a minute: no more restarts until the user asks. */
  | { kind: 'failed'; failures: number; reason: string }
  | { kind: 'stopping' }
  | { kind: 'stopped' };

export interface UpdateInfo {
  version: string;
  downloaded: boolean;
}

export interface AppState {
  phase: GatewayPhase;
  /** Unknown (null) until the first snapshot. */
  wallet: WalletView | null;
  keys: KeyView[];
  lines: LineView[];
  /** Whether the model API is paused; null until the first snapshot. */
  paused: boolean | null;
  /** The gateway's settings (its low-balance threshold among them); null until the first snapshot. */
  settings: SettingsView | null;
  /** Sum of today's logged costs (local day) as the gateway's `/api/stats` sums it, micro-USD. */
  spentTodayMicro: number;
  /** Local midnight that `spentTodayMicro` counts from, ms since the epoch. */
  dayStart: number;
  /** The coding tools (Claude Code, Codex, Gemini CLI) and whether they point here; null until first asked. */
  tools: ToolConnection[] | null;
  /** Whether the state is kept current by the gateway's event stream. */
  feed: 'live' | 'offline';
  update: UpdateInfo | null;
  /**
   * Agent sessions active or paused: the gateway's list when the feed connects, then each session
   * event; paused first, then the latest activity (at most MAX_SESSIONS, session-list.ts).
   */
  sessions: SessionView[];
  /** The latest warning, pause or resume of a session, numbered so each is notified once. */
  sessionNotice: { seq: number; notice: SessionNoticeView } | null;
}

export interface Snapshot {
  wallet: WalletView;
  keys: KeyView[];
  lines: LineView[];
  paused: boolean;
  settings: SettingsView;
}

/** Today's spend as `/api/stats` sums it, for the local day that starts at `dayStart`. */
export interface Spend {
  spentTodayMicro: number;
  dayStart: number;
}

export type Action =
  | { type: 'phase'; phase: GatewayPhase }
  | { type: 'snapshot'; snapshot: Snapshot }
  | { type: 'spend'; spend: Spend }
  | { type: 'key'; key: KeyView }
  | { type: 'wallet'; wallet: WalletView }
  | { type: 'line'; line: LineView }
  | { type: 'settings'; settings: SettingsView }
  | { type: 'paused'; paused: boolean }
  | { type: 'tools'; tools: ToolConnection[] }
  | { type: 'feed'; feed: AppState['feed'] }
  | { type: 'clock'; now: number }
  | { type: 'update'; update: UpdateInfo | null }
  | { type: 'session'; session: SessionView; notice: SessionNoticeView | null }
  /** The gateway's session list, asked for on connect (live-feed.ts). */
  | { type: 'sessions'; sessions: SessionView[] };

/** The low-balance threshold in force: the gateway's setting; none while it is unknown or switched off. */
export function lowBalanceOf(state: AppState): number | null {
  return state.settings?.lowBalanceMicro ?? null;
}

/** Local midnight of the day `ts` falls in. */
export function dayStartOf(ts: number): number {
  const d = new Date(ts);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

export function initialState(now: number): AppState {
  return {
    phase: { kind: 'starting' },
    wallet: null,
    keys: [],
    lines: [],
    paused: null,
    tools: null,
    settings: null,
    spentTodayMicro: 0,
    dayStart: dayStartOf(now),
    feed: 'offline',
    update: null,
    sessions: [],
    sessionNotice: null,
  };
}

function upsert<T extends { id: string }>(list: T[], item: T): T[] {
  const i = list.findIndex((x) => x.id === item.id);
  if (i < 0) return [...list, item];
  const copy = list.slice();
  copy[i] = item;
  return copy;
}

export function reduce(state: AppState, action: Action): AppState {
  switch (action.type) {
    case 'phase': {
      const running = action.phase.kind === 'running';
      // What we knew of a gateway that is gone is stale; keep it only while one runs.
      return running ? { ...state, phase: action.phase } : { ...state, phase: action.phase, feed: 'offline' };
    }
    case 'snapshot': {
      const s = action.snapshot;
      return { ...state, wallet: s.wallet, keys: s.keys, lines: s.lines, paused: s.paused, settings: s.settings };
    }
    case 'settings':
      return { ...state, settings: action.settings };
    case 'spend':
      // A sum for a day that has already ended (asked just before midnight) is not today's.
      return action.spend.dayStart < state.dayStart ? state : { ...state, ...action.spend };
    case 'key':
      return {
        ...state,
        keys:
          action.key.state === 'deleted'
            ? state.keys.filter((k) => k.id !== action.key.id)
            : upsert(state.keys, action.key),
      };
    case 'wallet':
      return { ...state, wallet: action.wallet };
    case 'line':
      return { ...state, lines: upsert(state.lines, action.line) };
    case 'paused':
      return { ...state, paused: action.paused };
    case 'tools':
      return { ...state, tools: action.tools };
    case 'feed':
      return { ...state, feed: action.feed };
    case 'clock': {
      const day = dayStartOf(action.now);
      return day > state.dayStart ? { ...state, dayStart: day, spentTodayMicro: 0 } : state;
    }
    case 'update':
      return { ...state, update: action.update };
    case 'session': {
      const s = action.session;
      const sessions = keptSessions([s, ...state.sessions.filter((x) => x.id !== s.id)]);
      const sessionNotice = action.notice
        ? { seq: (state.sessionNotice?.seq ?? 0) + 1, notice: action.notice }
        : state.sessionNotice;
      return { ...state, sessions, sessionNotice };
    }
    case 'sessions':
      return { ...state, sessions: joinSessions(state.sessions, action.sessions) };
  }
}
