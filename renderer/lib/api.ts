/**
 * The console's one door to the gateway: every screen calls the admin API through the typed client
 * derived from the contract. Requests ride on the session cookie that /login set (never the admin
 * token) and carry the console header the admin guard asks of cookie-authorised requests
 * (gateway/admin/session.ts).
 */
import {
  AdminClient,
  AdminError,
  type AliasView,
  type ConnectBody,
  type ConnectionView,
  type ConnectView,
  type CreatedKey,
  type CreateGroupBody,
  type CreateKeyBody,
  type CreateLineBody,
  type DisconnectView,
  type GroupView,
  type KeyView,
  type LineTestView,
  type LineView,
  type LogEntry,
  type LogFilter,
  type LogsQuery,
  type ModelView,
  type PresetView,
  type SettingsView,
  type SnippetView,
  type StatsRowView,
  type StatusView,
  type UpdateGroupBody,
  type UpdateKeyBody,
  type UpdateLineBody,
  type UpdateSettingsBody,
  type WalletTransactionView,
  type WalletView,
} from '../../gateway/contract/admin/index.js';

export type {
  AliasView,
  CreatedKey,
  GroupView,
  KeyView,
  LineTestView,
  LineView,
  LogEntry,
  ModelView,
  PresetView,
  StatsRowView,
  StatusView,
  WalletTransactionView,
  WalletView,
};
export type { ConnectBody, ConnectionView, ConnectView, DisconnectView, SettingsView, SnippetView, UpdateSettingsBody };
export type { CreateGroupBody, CreateKeyBody, CreateLineBody, UpdateGroupBody, UpdateKeyBody, UpdateLineBody };

export const CONSOLE_HEADER = 'x-tollgate-console';

/**
 * The typed admin client (gateway/contract/admin/client.ts), on the page's own origin, with the session
 * cookie and the console header; every reply is checked against the contract before a screen sees it.
 */
export const admin = new AdminClient({ baseUrl: '', headers: { [CONSOLE_HEADER]: '1' }, credentials: 'same-origin' });

export { AdminError };

/** True when the session is gone (expired, logged out, gateway restarted): show the login screen. */
export function isLoggedOut(err: unknown): boolean {
  return err instanceof AdminError && (err.code === 'admin_token_required' || err.code === 'console_header_required');
}

/** The CSV export of a filter: a plain link the browser downloads as it streams. */
export function csvUrl(f: LogFilter): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== '') q.set(k, String(v));
  const text = q.toString();
  return `/api/logs.csv${text ? `?${text}` : ''}`;
}

/** The calls the screens make, unwrapped where a reply is one list. */
export const api = {
  status: () => admin.call('getStatus'),
  logout: () => admin.call('logout'),

  keys: async () => (await admin.call('listKeys')).keys,
  createKey: (body: CreateKeyBody) => admin.call('createKey', { body }),
  setKeyEnabled: async (name: string, enabled: boolean) =>
    (await admin.call(enabled ? 'enableKey' : 'disableKey', { params: { name } })).key,
  deleteKey: async (name: string) => (await admin.call('deleteKey', { params: { name } })).key,
  updateKey: async (name: string, body: UpdateKeyBody) =>
    (await admin.call('updateKey', { params: { name }, body })).key,

  wallet: () => admin.call('getWallet'),
  topup: (amountMicro: number, note?: string) =>
    admin.call('topUp', { body: { amountMicro, ...(note ? { note } : {}) } }),
  adjust: (amountMicro: number, note: string) => admin.call('adjustWallet', { body: { amountMicro, note } }),
  walletTransactions: async () => (await admin.call('listWalletTransactions', { query: { limit: 100 } })).transactions,

  presets: async () => (await admin.call('listPresets')).presets,
  lines: async () => (await admin.call('listLines')).lines,
  addLine: async (body: CreateLineBody) => (await admin.call('addLine', { body })).line,
  updateLine: async (name: string, body: UpdateLineBody) =>
    (await admin.call('updateLine', { params: { name }, body })).line,
  deleteLine: async (name: string) => (await admin.call('removeLine', { params: { name } })).line,
  testLine: (name: string) => admin.call('testLine', { params: { name } }),

  models: async () => (await admin.call('listModels')).models,
  groups: async () => (await admin.call('listGroups')).groups,
  addGroup: async (body: CreateGroupBody) => (await admin.call('addGroup', { body })).group,
  updateGroup: async (name: string, body: UpdateGroupBody) =>
    (await admin.call('updateGroup', { params: { name }, body })).group,
  removeGroup: async (name: string) => (await admin.call('removeGroup', { params: { name } })).group,

  logs: async (q: LogsQuery) => (await admin.call('listLogs', { query: q })).entries,
  requestBody: (requestId: string) => admin.call('getRequestBody', { params: { requestId } }),

  settings: () => admin.call('getSettings'),
  updateSettings: (body: UpdateSettingsBody) => admin.call('updateSettings', { body }),

  connections: () => admin.call('connectStatus'),
  connect: (tool: string, body: ConnectBody) => admin.call('connectTool', { params: { tool }, body }),
  disconnect: (tool: string) => admin.call('disconnectTool', { params: { tool } }),
  snippets: (model?: string) => admin.call('listSnippets', { query: model ? { model } : {} }),
};
