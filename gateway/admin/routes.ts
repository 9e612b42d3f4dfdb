import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Gateway } from '../services.js';
import { CreateAliasBody, CreateGroupBody, CreateKeyBody, CreateLineBody, TopupBody, UpdateLineBody, type StatusView } from './contract.js';
import * as lines from './lines.js';
import { hostIsLoopback, originAllowed, remoteIsLoopback } from './guard.js';
import * as ops from './operations.js';
import { AdminError } from './errors.js';
import { tokenMatches } from './token.js';

export interface AdminOptions {
  gateway: Gateway;
  token: string;
  status: () => StatusView;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The admin API under /api/: one contract for the console, the CLI and the tests. */
export async function adminRoutes(app: FastifyInstance, opts: AdminOptions): Promise<void> {
  const g = opts.gateway;

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const host = header(req, 'host');
    if (!hostIsLoopback(host) || !remoteIsLoopback(req.socket.remoteAddress)) {
      throw new AdminError(403, 'forbidden_host', 'The admin API answers only on a loopback address (127.0.0.1 or localhost).');
    }
    if (!originAllowed(header(req, 'origin'), header(req, 'sec-fetch-site'), host)) {
      throw new AdminError(403, 'forbidden_origin', 'Cross-origin requests to the admin API are refused.');
    }
    const auth = header(req, 'authorization') ?? '';
    const presented = auth.toLowerCase().startsWith('bearer ') ? auth.slice(7) : '';
    if (!presented || !tokenMatches(presented, opts.token)) {
      void reply.header('www-authenticate', 'Bearer');
      throw new AdminError(401, 'admin_token_required', 'The admin API needs the admin token (in the data dir, file admin-token) as "Authorization: Bearer <token>".');
    }
  });

  app.setErrorHandler(async (err: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    if (err instanceof AdminError) return reply.code(err.status).send({ error: { code: err.code, message: err.message } });
    if (err.validation || (err.statusCode && err.statusCode < 500)) {
      return reply.code(err.statusCode ?? 400).send({ error: { code: 'invalid_request', message: err.message } });
    }
    app.log.error(err);
    return reply.code(500).send({ error: { code: 'internal', message: 'Internal error; see the gateway log.' } });
  });

  app.get('/api/status', async () => opts.status());

  app.get('/api/keys', async () => ({ keys: ops.listKeys(g) }));
  app.post<{ Body: CreateKeyBody }>('/api/keys', { schema: { body: CreateKeyBody } }, async (req, reply) => reply.code(201).send(await ops.createKey(g, req.body)));
  app.post<{ Params: { name: string } }>('/api/keys/:name/enable', async (req) => ({ key: await ops.setKeyState(g, req.params.name, 'enabled') }));
  app.post<{ Params: { name: string } }>('/api/keys/:name/disable', async (req) => ({ key: await ops.setKeyState(g, req.params.name, 'disabled') }));
  app.delete<{ Params: { name: string } }>('/api/keys/:name', async (req) => ({ key: await ops.setKeyState(g, req.params.name, 'deleted') }));

  app.get('/api/wallet', async () => ops.wallet(g));
  app.post<{ Body: TopupBody }>('/api/wallet/topup', { schema: { body: TopupBody } }, async (req) => ops.topup(g, req.body.amountMicro, req.body.note));

  app.get('/api/lines', async () => ({ lines: lines.listLines(g) }));
  app.post<{ Body: CreateLineBody }>('/api/lines', { schema: { body: CreateLineBody } }, async (req, reply) => reply.code(201).send({ line: await lines.addLine(g, req.body) }));
  app.patch<{ Params: { name: string }; Body: UpdateLineBody }>('/api/lines/:name', { schema: { body: UpdateLineBody } }, async (req) => ({
    line: await lines.updateLine(g, req.params.name, req.body),
  }));
  app.delete<{ Params: { name: string } }>('/api/lines/:name', async (req) => ({ line: await lines.removeLine(g, req.params.name) }));
  app.post<{ Params: { name: string } }>('/api/lines/:name/test', async (req) => lines.testLine(g, req.params.name));
  app.get<{ Params: { name: string } }>('/api/lines/:name/models', async (req) => ({ models: await lines.upstreamModels(g, req.params.name) }));

  app.get('/api/presets', async () => ({ presets: lines.listPresets(g) }));

  app.get('/api/aliases', async () => ({ aliases: ops.listAliases(g) }));
  app.post<{ Body: CreateAliasBody }>('/api/aliases', { schema: { body: CreateAliasBody } }, async (req, reply) => reply.code(201).send({ alias: await ops.addAlias(g, req.body) }));
  app.delete<{ Params: { pattern: string } }>('/api/aliases/:pattern', async (req) => ({ alias: await ops.removeAlias(g, req.params.pattern) }));

  app.get('/api/models', async () => ({ models: ops.listModels(g) }));

  app.get('/api/groups', async () => ({ groups: ops.listGroups(g) }));
  app.post<{ Body: CreateGroupBody }>('/api/groups', { schema: { body: CreateGroupBody } }, async (req, reply) => reply.code(201).send({ group: await ops.addGroup(g, req.body) }));

  app.get<{ Querystring: { key?: string; model?: string; limit?: string; before?: string } }>('/api/logs', async (req) => {
    const q = req.query;
    const limit = q.limit === undefined ? undefined : Number(q.limit);
    const before = q.before === undefined ? undefined : Number(q.before);
    if ((limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) || (before !== undefined && !Number.isInteger(before)) || q.limit === '') {
      throw new AdminError(400, 'invalid_request', 'limit must be a positive integer and before an integer.');
    }
    return { entries: g.ledger.logs({ keyName: q.key, model: q.model, limit, beforeId: before }) };
  });

  app.get('/api/doctor', async () => ops.doctor(g));
}
