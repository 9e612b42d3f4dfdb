// temporary (not committed): profile one row in process
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { PATHS, PHASES, requestFor } from './matrix.js';
import { Cleanup, startMock } from './processes.js';
import { listenReferenceProxy } from './reference-proxy.js';
import { setupGateway, UPSTREAM_KEY, UPSTREAM_KEY_ENV } from './setup.js';
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
process.env.TOLLGATE_CATALOGUE_DATE ??= '2026-11-24';
process.env[UPSTREAM_KEY_ENV] = UPSTREAM_KEY;
const id = process.argv[2]!;
const N = Number(process.argv[3] ?? 20000);
const cleanup = new Cleanup();
cleanup.installHandlers();
const mock = await startMock(cleanup, undefined);
const dataDir = mkdtempSync(join(os.tmpdir(), 'cpu6-prof-'));
const { serve } = await import('../dist/gateway/serve.js' as string);
const { MemorySecretStore } = await import('../dist/gateway/store/secrets.js' as string);
const running = await serve({ dataDir, secrets: new MemorySecretStore(), host: '127.0.0.1', port: 0 });
const { key } = await setupGateway(running.url, running.adminToken, mock.url);
const proxy = await listenReferenceProxy(mock.url);
const at = { mockUrl: mock.url, proxyUrl: proxy.url, upstreamKey: UPSTREAM_KEY, gatewayUrl: running.url, gatewayKey: key };
const phase = PHASES.find((p) => p.id === 'c16')!;
const req = requestFor(PATHS.find((p) => p.id === id)!, phase, at);
const pool = new Pool(new URL(req.url).origin, { connections: 16 });
const { pathname, search } = new URL(req.url);
async function load(n: number) {
  let left = n;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (left-- > 0) {
      const res = await pool.request({ path: pathname + search, method: 'POST', headers: req.headers, body: req.body });
      await res.body.text();
      if (res.statusCode >= 300) throw new Error(String(res.statusCode));
    }
  }));
}
await load(4000);
const s = new Session(); s.connect();
const post = (m: string, p?: object) => new Promise<any>((r, j) => s.post(m, p ?? {}, (e, x) => (e ? j(e) : r(x))));
await post('Profiler.enable'); await post('Profiler.setSamplingInterval', { interval: 200 }); await post('Profiler.start');
const c0 = process.cpuUsage();
await load(N);
const c = process.cpuUsage(c0);
const { profile } = await post('Profiler.stop');
writeFileSync(`/tmp/cpu6-${id.replace(/[^a-z-]/g, '_')}.cpuprofile`, JSON.stringify(profile));
console.log(id, 'cpu µs/req', ((c.user + c.system) / N).toFixed(0));
await pool.close(); await proxy.stop(); await running.close(1000); await cleanup.runAll(); process.exit(0);
