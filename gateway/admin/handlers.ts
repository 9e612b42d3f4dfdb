/**
 * One handler per route of the table, typed from it: each gets its route's validated params, query
 * and body and must return its route's reply; a route without a handler does not compile. Each
 * hands its input to one operation (gateway/operations/, one file per domain) and wraps the result
 * in the route's reply; only the console login and logout, which set a cookie, are HTTP work.
 */
import type { Where } from '../connect/index.js';
import type { Gateway } from '../compose/gateway.js';
import * as aliases from '../operations/aliases.js';
import type { Connections } from '../operations/connect.js';
import { doctor } from '../operations/doctor.js';
import * as groups from '../operations/groups.js';
import * as keys from '../operations/keys.js';
import { importLineModels } from '../operations/line-models.js';
import { testLine, upstreamModels } from '../operations/line-upstream.js';
import { keyStorage, lineUsage, probeLine } from '../operations/line-setup.js';
import * as lines from '../operations/lines.js';
import * as logs from '../operations/logs.js';
import { importPrices } from '../operations/model-import.js';
import * as models from '../operations/models.js';
import * as agentSessions from '../operations/sessions.js';
import * as settings from '../operations/settings.js';
import { setPaused, status as gatewayStatus } from '../operations/status.js';
import * as wallet from '../operations/wallet.js';
import type { Reply, RouteInput, RouteName, StatusView } from '../contract/admin/index.js';
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
  const connections = connectionsWhenCalled(g, status, where);
  return {
    getStatus: () => gatewayStatus(g, status),
    pauseGateway: () => setPaused(g, true, status),
    resumeGateway: () => setPaused(g, false, status),

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

    listKeys: () => ({ keys: keys.listKeys(g) }),
    createKey: ({ body }) => keys.createKey(g, body),
    disableKey: async ({ params }) => ({ key: await keys.setKeyState(g, params.name, 'disabled') }),
    enableKey: async ({ params }) => ({ key: await keys.setKeyState(g, params.name, 'enabled') }),
    deleteKey: async ({ params }) => ({ key: await keys.setKeyState(g, params.name, 'deleted') }),
    updateKey: async ({ params, body }) => ({ key: await keys.updateKey(g, params.name, body) }),
    getKeyUsage: ({ query }) => keys.keyUsage(g, query),
    playgroundKey: () => keys.playgroundKey(g),

    getWallet: () => wallet.wallet(g),
    topUp: ({ body }) => wallet.topup(g, body.amountMicro, body.note),
    listWalletTransactions: ({ query }) => ({ transactions: wallet.walletTransactions(g, query) }),

    listPresets: () => ({ presets: lines.listPresets(g) }),

    listLines: () => ({ lines: lines.listLines(g) }),
    addLine: ({ body }) => lines.addLine(g, body, status().url),
    updateLine: ({ params, body }) => lines.updateLine(g, params.name, body, status().url),
    removeLine: async ({ params }) => ({ line: await lines.removeLine(g, params.name) }),
    testLine: ({ params }) => testLine(g, params.name),
    keyStorage: () => keyStorage(g),
    probeLine: ({ body }) => probeLine(g, body, status().url),
    getLineUsage: ({ query }) => lineUsage(g, query.since),
    listLineModels: async ({ params }) => ({ models: await upstreamModels(g, params.name) }),
    importLineModels: ({ params, body }) => importLineModels(g, params.name, body),

    listAliases: () => ({ aliases: aliases.listAliases(g) }),
    addAlias: async ({ body }) => ({ alias: await aliases.addAlias(g, body) }),
    removeAlias: async ({ params }) => ({ alias: await aliases.removeAlias(g, params.pattern) }),

    listModels: ({ query }) => models.listModels(g, query),
    getModel: ({ params }) => ({ model: models.modelView(g, models.findModel(g, params.id)) }),
    addModel: async ({ body }) => ({ model: await models.addModel(g, body) }),
    updateModel: async ({ params, body }) => ({ model: await models.updateModel(g, params.id, body) }),
    removeModel: async ({ params, query }) => ({ model: await models.removeModel(g, params.id, query) }),
    resetModel: async ({ params }) => ({ model: await models.resetModel(g, params.id) }),
    importPrices: ({ body }) => importPrices(g, body),

    listGroups: () => ({ groups: groups.listGroups(g) }),
    addGroup: async ({ body }) => ({ group: await groups.addGroup(g, body) }),
    updateGroup: async ({ params, body }) => ({ group: await groups.updateGroup(g, params.name, body) }),
    removeGroup: async ({ params }) => ({ group: await groups.removeGroup(g, params.name) }),

    listLogs: ({ query }) => ({ entries: logs.listLogs(g, query) }),
    getLogSummary: ({ query }) => logs.logSummary(g, query),
    getStats: ({ query }) => ({ rows: logs.stats(g, query) }),
    getStatsTop: ({ query }) => logs.statsTop(g, query),

    runDoctor: () => doctor(g),

    connectStatus: async () => (await connections()).status(),
    connectTool: async ({ params, body }) => (await connections()).connect(params.tool, body),
    disconnectTool: async ({ params, query }) => (await connections()).disconnect(params.tool, query),
    listSnippets: async ({ query }) => (await connections()).snippets(query),
    shellEnv: async ({ params, body }) => (await connections()).env(params.target, body),

    getSettings: () => settings.settingsView(g, status().url),
    updateSettings: ({ body }) => settings.updateSettings(g, body, status().url),
    adjustWallet: ({ body }) => wallet.adjust(g, body.amountMicro, body.note),
    getRequestBody: ({ params }) => logs.requestBody(g, params.requestId),

    listSessions: ({ query }) => ({ sessions: agentSessions.listSessions(g, query) }),
    getSession: ({ params }) => agentSessions.getSession(g, params.id),
    resumeSession: ({ params, body }) => ({ session: agentSessions.resumeSession(g, params.id, body) }),
    getSavings: ({ query }) => agentSessions.savings(g, query),
  };
}

/**
 * The connect routes' operations, loaded by the first connect route called: their file editors
 * (TOML, JSONC, dotenv, the diff) are for `tollgate connect` alone, and a gateway that only serves
 * models never holds them (docs/performance.md, "Memory, idle and at peak"). Admin routes only,
 * never the model request path. A load that failed is tried again by the next call.
 */
function connectionsWhenCalled(g: Gateway, status: () => StatusView, where?: Where): () => Promise<Connections> {
  let loading: Promise<Connections> | undefined;
  return () =>
    (loading ??= import('../operations/connect.js').then(
      ({ Connections }) => new Connections(g, () => status().url, where),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
}
