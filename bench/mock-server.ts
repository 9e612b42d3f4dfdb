/**
 * The test suite's mock upstream as a process of its own, so the bench can pin it to a core.
 * Usage: node --import tsx bench/mock-server.ts [--port N]; prints `MOCK_URL=http://127.0.0.1:PORT` once listening.
 */
import { startMockUpstream } from '../test/helpers/mock-upstream.js';

const at = process.argv.indexOf('--port');
const port = at >= 0 ? Number(process.argv[at + 1]) : 0;
const mock = await startMockUpstream({ port });

// The mock records every request for tests to inspect; a bench sends hundreds of thousands, so forget them
// regularly or the mock's heap (and its GC pauses) would grow through the run and skew later cells.
setInterval(() => mock.reset(), 500).unref();

process.stdout.write(`MOCK_URL=${mock.url}\n`);

const stop = (): void => {
  void mock.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
