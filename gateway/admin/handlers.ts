/**
 * One handler per route of the table, typed from it: each gets its route's validated params, query
 * and body and must return its route's reply; a route without a handler does not compile. The work
 * itself is in operations.ts, lines.ts and connect.ts.
 */
import type { Where } from '../connect/index.js';
import type { Gateway } from '../compose/gateway.js';
import { Connections } from './connect.js';
import type { Reply, RouteInput, RouteName, StatusView } from './contract.js';
import * as lines from './lines.js';
import * as ops from './operations.js';

export type AdminHandlers = { [N in RouteName]: (input: RouteInput<N>) => Reply<N> | Promise<Reply<N>> };

/** `where`: the home and environment whose tools the connect routes edit (this process's by default). */
export function adminHandlers(g: Gateway, status: () => StatusView, where?: Where): AdminHandlers {
  const connections = new Connections(g, () => status().url, where);
  return {
    getStatus: () => status(),

    listKeys: () => ({ keys: ops.listKeys(g) }),
    createKey: ({ body }) => ops.createKey(g, body),
    disableKey: async ({ params }) => ({ key: await ops.setKeyState(g, params.name, 'disabled') }),
    enableKey: async ({ params }) => ({ key: await ops.setKeyState(g, params.name, 'enabled') }),
    deleteKey: async ({ params }) => ({ key: await ops.setKeyState(g, params.name, 'deleted') }),

    getWallet: () => ops.wallet(g),
    topUp: ({ body }) => ops.topup(g, body.amountMicro, body.note),

    listPresets: () => ({ presets: lines.listPresets(g) }),

    listLines: () => ({ lines: lines.listLines(g) }),
    addLine: async ({ body }) => ({ line: await lines.addLine(g, body) }),
    updateLine: async ({ params, body }) => ({ line: await lines.updateLine(g, params.name, body) }),
    removeLine: async ({ params }) => ({ line: await lines.removeLine(g, params.name) }),
    testLine: ({ params }) => lines.testLine(g, params.name),
    listLineModels: async ({ params }) => ({ models: await lines.upstreamModels(g, params.name) }),

    listAliases: () => ({ aliases: ops.listAliases(g) }),
    addAlias: async ({ body }) => ({ alias: await ops.addAlias(g, body) }),
    removeAlias: async ({ params }) => ({ alias: await ops.removeAlias(g, params.pattern) }),

    listModels: () => ({ models: ops.listModels(g) }),

    listGroups: () => ({ groups: ops.listGroups(g) }),
    addGroup: async ({ body }) => ({ group: await ops.addGroup(g, body) }),

    listLogs: ({ query }) => ({ entries: g.ledger.logs({ keyName: query.key, model: query.model, limit: query.limit, beforeId: query.before }) }),

    runDoctor: () => ops.doctor(g),

    connectStatus: () => connections.status(),
    connectTool: ({ params, body }) => connections.connect(params.tool, body),
    disconnectTool: ({ params, query }) => connections.disconnect(params.tool, query),
    listSnippets: ({ query }) => connections.snippets(query),
    shellEnv: ({ params, body }) => connections.env(params.target, body),
  };
}
