/**
 * The reference row: a bare Fastify pass-through proxy (no keys, billing, routing or logging) in front of the
 * same mock, started and pinned like the gateway. It shows what any Node proxy costs on this machine, the
 * yardstick the speed targets are set against ("a bare Fastify pass-through reaches about 0.5 × direct at about
 * 80 µs CPU per request"). It forwards every POST path unchanged to the upstream origin, streaming the reply.
 * Usage: node --import tsx bench/reference-proxy.ts --upstream http://127.0.0.1:PORT; prints `PROXY_URL=…`.
 * bench/request-cost.ts runs the same proxy in its own process through `listenReferenceProxy`.
 */
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { Pool } from 'undici';

const FORWARDED = ['content-type', 'authorization', 'x-api-key', 'anthropic-version'];

/** The proxy listening on a free port of 127.0.0.1 in front of `upstream` (an origin). */
export async function listenReferenceProxy(upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const pool = new Pool(upstream, { connections: 128, pipelining: 1 });
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/*', async (req, reply) => {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const res = await pool.request({ path: req.url, method: 'POST', headers, body: req.body as Buffer });
    const type = res.headers['content-type'];
    if (typeof type === 'string') void reply.header('content-type', type);
    return reply.code(res.statusCode).send(res.body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return { url, stop: () => app.close().then(() => pool.close()) };
}

// Run as a script (the bench starts it compiled, as bench/results/reference-proxy.mjs), not imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--upstream');
  const upstream = at >= 0 ? process.argv[at + 1] : undefined;
  if (!upstream) throw new Error('--upstream URL is required');
  const proxy = await listenReferenceProxy(upstream);
  process.stdout.write(`PROXY_URL=${proxy.url}\n`);
  const stop = (): void => void proxy.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
