/**
 * One handler per route of the table, typed from it: each gets its route's validated params, query
 * and body and must return its route's reply; a route without a handler does not compile. The work
 * itself is in operations.ts, lines.ts and connect.ts.
 */
import type { Where } from '../connect/index.js';
import type { Gateway } from '../compose/gateway.js';
import { Connections } from './connect.js';
import {
  AdminError,
  logFilterOf,
  type Reply,
  type RouteInput,
  type RouteName,
  type StatsQuery,
  type StatusView,
} from '../contract/admin/index.js';
import * as groups from './groups.js';
import { importLineModels } from './line-models.js';
import * as lines from './lines.js';
import { importPrices } from './model-import.js';
import * as models from './models.js';
import * as ops from './operations.js';
import * as settings from './settings.js';
import { clearedCookie, cookieName, readCookie, type ConsoleSessions } from './session.js';

/** The little of the HTTP exchange a handler may need: the console session's cookie, in and out. */
export interface HandlerContext {
  cookie: string | undefined;
  host: string | undefined;
  setCookie(value: string): void;
}

export type AdminHandlers = {
  [N in RouteName]: (input: RouteInput<N>, ctx: HandlerContext) => Reply<N> | Promise<Reply<N>>;
};

/** `where`: the home and environment whose tools the connect routes edit (this process's by default). */
export function adminHandlers(
  g: Gateway,
  status: () => StatusView,
  sessions: ConsoleSessions,
  where?: Where,
): AdminHandlers {
  const connections = new Connections(g, () => status().url, where);
  const fullStatus = (): StatusView => ({ ...status(), unauthenticatedRequests: g.keys.failures.total });
  return {
    getStatus: fullStatus,

    pauseGateway: () => {
      g.pause.set(true);
      return fullStatus();
    },
    resumeGateway: () => {
      g.pause.set(false);
      return fullStatus();
    },

    createLoginCode: () => {
      const { code, expiresAt } = sessions.mintCode();
      return { code, url: `${status().url}/login?code=${code}`, expiresAt: new Date(expiresAt).toISOString() };
    },
    logout: (_input, ctx) => {
      const name = cookieName(ctx.host);
      sessions.revoke(readCookie(ctx.cookie, name));
      ctx.setCookie(clearedCookie(name));
      return { ok: true };
    },

    listKeys: () => ({ keys: ops.listKeys(g) }),
    createKey: ({ body }) => ops.createKey(g, body),
    disableKey: async ({ params }) => ({ key: await ops.setKeyState(g, params.name, 'disabled') }),
    enableKey: async ({ params }) => ({ key: await ops.setKeyState(g, params.name, 'enabled') }),
    deleteKey: async ({ params }) => ({ key: await ops.setKeyState(g, params.name, 'deleted') }),
    updateKey: async ({ params, body }) => ({ key: await ops.updateKey(g, params.name, body) }),

    getWallet: () => ops.wallet(g),
    topUp: ({ body }) => ops.topup(g, body.amountMicro, body.note),
    listWalletTransactions: ({ query }) => ({
      transactions: g.ledger.reports.walletTransactions({ limit: query.limit, beforeId: query.before }),
    }),

    listPresets: () => ({ presets: lines.listPresets(g) }),

    listLines: () => ({ lines: lines.listLines(g) }),
    addLine: ({ body }) => lines.addLine(g, body, status().url),
    updateLine: ({ params, body }) => lines.updateLine(g, params.name, body, status().url),
    removeLine: async ({ params }) => ({ line: await lines.removeLine(g, params.name) }),
    testLine: ({ params }) => lines.testLine(g, params.name),
    listLineModels: async ({ params }) => ({ models: await lines.upstreamModels(g, params.name) }),
    importLineModels: ({ params, body }) => importLineModels(g, params.name, body),

    listAliases: () => ({ aliases: ops.listAliases(g) }),
    addAlias: async ({ body }) => ({ alias: await ops.addAlias(g, body) }),
    removeAlias: async ({ params }) => ({ alias: await ops.removeAlias(g, params.pattern) }),

    listModels: ({ query }) => models.listModels(g, query),
    getModel: ({ params }) => ({ model: models.modelView(g, models.findModel(g, params.id)) }),
    addModel: async ({ body }) => ({ model: await models.addModel(g, body) }),
    updateModel: async ({ params, body }) => ({ model: await models.updateModel(g, params.id, body) }),
    removeModel: async ({ params, query }) => ({ model: await models.removeModel(g, params.id, query) }),
    resetModel: async ({ params }) => ({ model: await models.resetModel(g, params.id) }),
    importPrices: ({ body }) => importPrices(g, body),

    listGroups: () => ({ groups: ops.listGroups(g) }),
    addGroup: async ({ body }) => ({ group: await ops.addGroup(g, body) }),
    updateGroup: async ({ params, body }) => ({ group: await groups.updateGroup(g, params.name, body) }),
    removeGroup: async ({ params }) => ({ group: await groups.removeGroup(g, params.name) }),

    listLogs: ({ query }) => ({
      entries: g.ledger.reports.logs({ ...logFilterOf(query), limit: query.limit, beforeId: query.before }),
    }),

    getStats: ({ query }) => ({ rows: stats(g, query) }),

    runDoctor: () => ops.doctor(g),

    connectStatus: () => connections.status(),
    connectTool: ({ params, body }) => connections.connect(params.tool, body),
    disconnectTool: ({ params, query }) => connections.disconnect(params.tool, query),
    listSnippets: ({ query }) => connections.snippets(query),
    shellEnv: ({ params, body }) => connections.env(params.target, body),

    getSettings: () => settings.settingsView(g, status().url),
    updateSettings: ({ body }) => settings.updateSettings(g, body, status().url),
    adjustWallet: ({ body }) => ops.adjust(g, body.amountMicro, body.note),
    getRequestBody: ({ params }) => settings.requestBody(g, params.requestId),
  };
}

const DAY_MS = 86_400_000;

/** Hourly figures over at most 93 days, daily over at most ten years: a bounded answer. */
function stats(g: Gateway, q: StatsQuery) {
  if (q.until <= q.since) throw new AdminError(400, 'invalid_request', 'until must be after since.');
  const max = q.bucket === 'hour' ? 93 * DAY_MS : 3660 * DAY_MS;
  if (q.until - q.since > max)
    throw new AdminError(400, 'invalid_request', `A ${q.bucket}ly range spans at most ${max / DAY_MS} days.`);
  return g.ledger.reports.stats({ since: q.since, until: q.until, bucket: q.bucket, by: q.by, tzOffsetMinutes: q.tz });
}
