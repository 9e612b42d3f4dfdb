/**
 * The admin API, declared once. Each route of ADMIN_ROUTES names its method, path, the schemas of
 * what it takes (params, query, body) and of what it answers, and its success status. The server
 * registers its Fastify routes from this table (gateway/admin/routes.ts), the typed client is derived
 * from it (client.ts), and test/admin/ checks docs/admin-api.md against it.
 *
 * Like all of gateway/contract/, it runs in a browser too (no Node APIs): the console imports it.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import {
  AdjustBody,
  ConnectBody,
  CreateAliasBody,
  CreateGroupBody,
  CreateKeyBody,
  CreateLineBody,
  DisconnectQuery,
  EnvBody,
  LogsQuery,
  NameParams,
  PageQuery,
  PatternParams,
  RequestIdParams,
  SnippetsQuery,
  StatsQuery,
  StatsTopQuery,
  TargetParams,
  ToolParams,
  TopupBody,
  UpdateGroupBody,
  UpdateKeyBody,
  UpdateLineBody,
  UpdateSettingsBody,
} from './schemas.js';
import {
  AliasView,
  CreatedKey,
  DoctorReport,
  GroupView,
  KeyView,
  LineTestView,
  LineView,
  LogEntry,
  LogSummaryView,
  LoginCodeView,
  PresetView,
  RequestBodyView,
  SettingsView,
  StatsRowView,
  StatsTopView,
  StatusView,
  WalletTransactionView,
  WalletView,
} from './views.js';
import { ConnectionsView, ConnectView, DisconnectView, EnvView, SnippetsView } from './connect-views.js';

import {
  AddModelBody,
  ImportLineModelsBody,
  ImportPricesBody,
  ModelParams,
  ModelsQuery,
  RemoveModelQuery,
  UpdateModelBody,
} from './model-schemas.js';
import { LogFilter } from './log-filter.js';
import { KeyUsageList, KeyUsageQuery } from './key-usage.js';
import { KeyStorageView, LineUsageList, LineUsageQuery, ProbeLineBody, ProbeLineView } from './line-setup.js';
import { LineAddedView, LineImportView, ModelListView, ModelView, PriceImportView } from './model-views.js';
import {
  ResumeSessionBody,
  SavingsQuery,
  SavingsView,
  SessionDetailView,
  SessionParams,
  SessionsQuery,
  SessionView,
} from './session-views.js';

export type AdminMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface AdminRoute {
  method: AdminMethod;
  /** Fastify's form: `:name` is a path parameter, named in `params`. */
  path: `/api/${string}`;
  params?: TObject;
  /** Query-string fields; numbers and booleans in it are read from their text form. */
  query?: TObject;
  body?: TObject;
  reply: TSchema;
  /** The status of a success; 200 when absent. */
  status?: 201;
}

const OneKey = Type.Object({ key: KeyView });
const OneLine = Type.Object({ line: LineView });
const OneAlias = Type.Object({ alias: AliasView });
const OneGroup = Type.Object({ group: GroupView });
const OneModel = Type.Object({ model: ModelView });

export const ADMIN_ROUTES = {
  getStatus: { method: 'GET', path: '/api/status', reply: StatusView },

  // Pause: while paused the model API answers 503; the admin API keeps working (compose/pause.ts).
  pauseGateway: { method: 'POST', path: '/api/gateway/pause', reply: StatusView },
  resumeGateway: { method: 'POST', path: '/api/gateway/resume', reply: StatusView },

  createLoginCode: { method: 'POST', path: '/api/session/code', reply: LoginCodeView },
  logout: { method: 'POST', path: '/api/session/logout', reply: Type.Object({ ok: Type.Boolean() }) },

  listKeys: { method: 'GET', path: '/api/keys', reply: Type.Object({ keys: Type.Array(KeyView) }) },
  createKey: { method: 'POST', path: '/api/keys', body: CreateKeyBody, reply: CreatedKey, status: 201 },
  disableKey: { method: 'POST', path: '/api/keys/:name/disable', params: NameParams, reply: OneKey },
  enableKey: { method: 'POST', path: '/api/keys/:name/enable', params: NameParams, reply: OneKey },
  deleteKey: { method: 'DELETE', path: '/api/keys/:name', params: NameParams, reply: OneKey },
  updateKey: { method: 'PATCH', path: '/api/keys/:name', params: NameParams, body: UpdateKeyBody, reply: OneKey },
  getKeyUsage: { method: 'GET', path: '/api/keys/usage', query: KeyUsageQuery, reply: KeyUsageList },
  // The Playground's own key, made once and given a new secret when the console has none in memory.
  playgroundKey: { method: 'POST', path: '/api/playground/key', reply: CreatedKey },

  getWallet: { method: 'GET', path: '/api/wallet', reply: WalletView },
  topUp: { method: 'POST', path: '/api/wallet/topup', body: TopupBody, reply: WalletView },
  listWalletTransactions: {
    method: 'GET',
    path: '/api/wallet/transactions',
    query: PageQuery,
    reply: Type.Object({ transactions: Type.Array(WalletTransactionView) }),
  },

  listPresets: { method: 'GET', path: '/api/presets', reply: Type.Object({ presets: Type.Array(PresetView) }) },

  listLines: { method: 'GET', path: '/api/lines', reply: Type.Object({ lines: Type.Array(LineView) }) },
  keyStorage: { method: 'GET', path: '/api/lines/key-storage', reply: KeyStorageView },
  probeLine: { method: 'POST', path: '/api/lines/probe', body: ProbeLineBody, reply: ProbeLineView },
  getLineUsage: { method: 'GET', path: '/api/lines/usage', query: LineUsageQuery, reply: LineUsageList },
  addLine: { method: 'POST', path: '/api/lines', body: CreateLineBody, reply: LineAddedView, status: 201 },
  updateLine: {
    method: 'PATCH',
    path: '/api/lines/:name',
    params: NameParams,
    body: UpdateLineBody,
    reply: LineAddedView,
  },
  removeLine: { method: 'DELETE', path: '/api/lines/:name', params: NameParams, reply: OneLine },
  testLine: { method: 'POST', path: '/api/lines/:name/test', params: NameParams, reply: LineTestView },
  listLineModels: {
    method: 'GET',
    path: '/api/lines/:name/models',
    params: NameParams,
    reply: Type.Object({ models: Type.Array(Type.String()) }),
  },
  importLineModels: {
    method: 'POST',
    path: '/api/lines/:name/models/import',
    params: NameParams,
    body: ImportLineModelsBody,
    reply: LineImportView,
  },

  listAliases: { method: 'GET', path: '/api/aliases', reply: Type.Object({ aliases: Type.Array(AliasView) }) },
  addAlias: { method: 'POST', path: '/api/aliases', body: CreateAliasBody, reply: OneAlias, status: 201 },
  removeAlias: { method: 'DELETE', path: '/api/aliases/:pattern', params: PatternParams, reply: OneAlias },

  listModels: { method: 'GET', path: '/api/models', query: ModelsQuery, reply: ModelListView },
  getModel: { method: 'GET', path: '/api/models/:id', params: ModelParams, reply: OneModel },
  addModel: { method: 'POST', path: '/api/models', body: AddModelBody, reply: OneModel, status: 201 },
  updateModel: {
    method: 'PATCH',
    path: '/api/models/:id',
    params: ModelParams,
    body: UpdateModelBody,
    reply: OneModel,
  },
  removeModel: {
    method: 'DELETE',
    path: '/api/models/:id',
    params: ModelParams,
    query: RemoveModelQuery,
    reply: OneModel,
  },
  resetModel: { method: 'POST', path: '/api/models/:id/reset', params: ModelParams, reply: OneModel },
  importPrices: { method: 'POST', path: '/api/models/import', body: ImportPricesBody, reply: PriceImportView },

  listGroups: { method: 'GET', path: '/api/groups', reply: Type.Object({ groups: Type.Array(GroupView) }) },
  addGroup: { method: 'POST', path: '/api/groups', body: CreateGroupBody, reply: OneGroup, status: 201 },
  updateGroup: {
    method: 'PATCH',
    path: '/api/groups/:name',
    params: NameParams,
    body: UpdateGroupBody,
    reply: OneGroup,
  },
  removeGroup: { method: 'DELETE', path: '/api/groups/:name', params: NameParams, reply: OneGroup },

  listLogs: {
    method: 'GET',
    path: '/api/logs',
    query: LogsQuery,
    reply: Type.Object({ entries: Type.Array(LogEntry) }),
  },
  getLogSummary: { method: 'GET', path: '/api/logs/summary', query: LogFilter, reply: LogSummaryView },
  getStats: {
    method: 'GET',
    path: '/api/stats',
    query: StatsQuery,
    reply: Type.Object({ rows: Type.Array(StatsRowView) }),
  },
  getStatsTop: { method: 'GET', path: '/api/stats/top', query: StatsTopQuery, reply: StatsTopView },

  runDoctor: { method: 'GET', path: '/api/doctor', reply: DoctorReport },

  connectStatus: { method: 'GET', path: '/api/connect', reply: ConnectionsView },
  connectTool: {
    method: 'POST',
    path: '/api/connect/:tool',
    params: ToolParams,
    body: ConnectBody,
    reply: ConnectView,
  },
  disconnectTool: {
    method: 'DELETE',
    path: '/api/connect/:tool',
    params: ToolParams,
    query: DisconnectQuery,
    reply: DisconnectView,
  },
  listSnippets: { method: 'GET', path: '/api/connect/snippets', query: SnippetsQuery, reply: SnippetsView },
  shellEnv: { method: 'POST', path: '/api/env/:target', params: TargetParams, body: EnvBody, reply: EnvView },

  // Settings, wallet adjustments and stored request bodies (the console's Settings and Wallet pages).
  getSettings: { method: 'GET', path: '/api/settings', reply: SettingsView },
  updateSettings: { method: 'PATCH', path: '/api/settings', body: UpdateSettingsBody, reply: SettingsView },
  adjustWallet: { method: 'POST', path: '/api/wallet/adjust', body: AdjustBody, reply: WalletView },
  getRequestBody: { method: 'GET', path: '/api/logs/:requestId/body', params: RequestIdParams, reply: RequestBodyView },

  // Agent sessions (docs/sessions.md): what each cost, and resuming one a guard paused.
  listSessions: {
    method: 'GET',
    path: '/api/sessions',
    query: SessionsQuery,
    reply: Type.Object({ sessions: Type.Array(SessionView) }),
  },
  getSession: { method: 'GET', path: '/api/sessions/:id', params: SessionParams, reply: SessionDetailView },
  resumeSession: {
    method: 'POST',
    path: '/api/sessions/:id/resume',
    params: SessionParams,
    body: ResumeSessionBody,
    reply: Type.Object({ session: SessionView }),
  },
  getSavings: { method: 'GET', path: '/api/savings', query: SavingsQuery, reply: SavingsView },
} as const satisfies Record<string, AdminRoute>;

export type AdminRoutes = typeof ADMIN_ROUTES;
export type RouteName = keyof AdminRoutes;

export function successStatus(route: AdminRoute): number {
  return route.status ?? 200;
}

type Part<R, K extends 'params' | 'query' | 'body'> = R extends { readonly [P in K]: infer S extends TSchema }
  ? Static<S>
  : undefined;

/** What a handler receives, validated: each part is undefined when the route declares none. */
export interface RouteInput<N extends RouteName> {
  params: Part<AdminRoutes[N], 'params'>;
  query: Part<AdminRoutes[N], 'query'>;
  body: Part<AdminRoutes[N], 'body'>;
}

/** What a caller sends: params and body where the route has them; a query is always optional. */
export type CallInput<N extends RouteName> = (Part<AdminRoutes[N], 'params'> extends undefined
  ? { params?: undefined }
  : { params: Part<AdminRoutes[N], 'params'> }) &
  (Part<AdminRoutes[N], 'query'> extends undefined
    ? { query?: undefined }
    : { query?: Part<AdminRoutes[N], 'query'> }) &
  (Part<AdminRoutes[N], 'body'> extends undefined ? { body?: undefined } : { body: Part<AdminRoutes[N], 'body'> });

export type Reply<N extends RouteName> = Static<AdminRoutes[N]['reply']>;
