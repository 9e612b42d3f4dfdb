/**
 * The console's one door to the gateway: every screen calls the admin API as `admin.call(route, …)`,
 * the typed client of the contract (gateway/contract/admin/), with the route names of
 * docs/admin-api.md; there is no second set of method names. Requests ride on the session cookie that
 * /login set (never the admin token) and carry the session's page token in the console header, which
 * the admin guard asks of cookie-authorised requests (gateway/admin/session.ts, console-token.ts).
 * Query hooks and keys: queries.ts.
 */
import { AdminClient, AdminError, type LogFilter } from '../../gateway/contract/admin/index.js';
import { consoleToken } from './console-token.js';

/** The contract's types the screens use, in one import. */
export type {
  AliasView,
  ConnectBody,
  ConnectionView,
  ConnectView,
  CreatedKey,
  CreateGroupBody,
  CreateKeyBody,
  CreateLineBody,
  DisconnectView,
  GroupView,
  KeyView,
  LineTestView,
  LineView,
  LogEntry,
  ModelView,
  PresetView,
  SessionDetailView,
  SessionsQuery,
  SessionView,
  SettingsView,
  SnippetView,
  StatsRowView,
  StatusView,
  UpdateGroupBody,
  UpdateKeyBody,
  UpdateLineBody,
  UpdateSettingsBody,
  WalletTransactionView,
  WalletView,
} from '../../gateway/contract/admin/index.js';

export const CONSOLE_HEADER = 'x-tollgate-console';

/**
 * The typed admin client, on the page's own origin, with the session cookie and the page token in
 * the console header; every reply is checked against the contract before a screen sees it.
 */
export const admin = new AdminClient({
  baseUrl: '',
  headers: { [CONSOLE_HEADER]: consoleToken() },
  credentials: 'same-origin',
});

export { AdminError };

/** True when the session is gone (expired, logged out, gateway restarted): show the login screen. */
export function isLoggedOut(err: unknown): boolean {
  return err instanceof AdminError && (err.code === 'admin_token_required' || err.code === 'console_header_required');
}

/** The CSV export of a filter: a plain link the browser downloads as it streams (a link cannot send the header, so the page token rides in the query). */
export function csvUrl(f: LogFilter): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') q.set(k, String(v));
  q.set('console', consoleToken());
  const text = q.toString();
  return `/api/logs.csv${text ? `?${text}` : ''}`;
}
