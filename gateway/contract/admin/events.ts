/**
 * The event stream, `GET /api/events`, declared once: each event's name and the schema of its data.
 * The server sends through this table (gateway/admin/events.ts), the reader beside the typed client
 * checks every event against it (events-client.ts), and the console and the tray handle each event
 * by name with the types derived from it (AdminEventHandlers: a new event is a compile error in
 * every client until it is handled). docs/admin-api.md, "The event stream", says when each comes.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Nullable } from './schemas.js';
import { KeyView, LineView, LogEntry, SettingsView, StatusView, WalletView } from './views.js';
import { SessionNoticeView, SessionView } from './session-views.js';

export const ADMIN_EVENTS = {
  /** At once, on connecting: the state the changes that follow apply to. */
  snapshot: Type.Object({
    status: StatusView,
    wallet: WalletView,
    keys: Type.Array(KeyView),
    lines: Type.Array(LineView),
    settings: SettingsView,
  }),
  /** A request was logged (oldest first when several). */
  log: Type.Object({ entry: LogEntry }),
  /** Balance, held, top-ups or spend changed. */
  wallet: Type.Object({ wallet: WalletView }),
  /** A key was created or changed; a deleted key once more, with `state: 'deleted'`. */
  key: Type.Object({ key: KeyView }),
  /** A line was added or changed (its breaker, a hold); `removed: true` once when it is deleted. */
  line: Type.Object({ line: LineView, removed: Type.Optional(Type.Literal(true)) }),
  /** The gateway was paused or resumed. */
  status: Type.Object({ status: StatusView }),
  /** A setting changed (the console, the CLI, the desktop app's move of its old settings). */
  settings: Type.Object({ settings: SettingsView }),
  /**
   * An agent session changed: a request of it settled, or a guard spoke. `notice` is set once per
   * warning (80 % of a session cap or a budget window), pause and resume, for the tray and console
   * to show; null on a plain update.
   */
  session: Type.Object({ session: SessionView, notice: Nullable(SessionNoticeView) }),
} as const satisfies Record<string, TObject>;

export type AdminEventName = keyof typeof ADMIN_EVENTS;
export type AdminEventData<E extends AdminEventName> = Static<(typeof ADMIN_EVENTS)[E]>;
/** One event as a client sees it: its name, and data of that event's type. */
export type AdminEvent = { [E in AdminEventName]: { event: E; data: AdminEventData<E> } }[AdminEventName];
/** What a client does with each event; every event must be named, so none is forgotten. */
export type AdminEventHandlers<R = void> = { [E in AdminEventName]: (data: AdminEventData<E>) => R };

export function isAdminEventName(name: string): name is AdminEventName {
  return Object.hasOwn(ADMIN_EVENTS, name);
}

/** Runs the handler of `e`'s event. */
export function handleAdminEvent<R>(handlers: AdminEventHandlers<R>, e: AdminEvent): R {
  return (handlers[e.event] as (data: AdminEvent['data']) => R)(e.data);
}
