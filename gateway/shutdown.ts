/**
 * Closing the HTTP server so that quitting never hangs and never loses a ledger row.
 *
 * `app.close()` alone stops listening and then waits for every open connection to end, and a
 * client's keep-alive connection stays open after its last answer until the client drops it (4 s
 * for Node's fetch, a minute or more for other clients): quitting the desktop app would hang on an
 * idle SDK. So while closing, idle connections are closed as soon as they are idle (a request in
 * flight keeps its connection until its answer is out, and its ledger row is written before the
 * answer ends). Past `graceMs`, the remaining connections are cut, as if their clients had hung up;
 * the relay then settles those requests (cut-short billing), and closing waits, bounded, until
 * nothing is held any more so the ledger is closed after their rows.
 */
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';

export interface CloseOptions {
  /** How long requests in flight may take to finish before their connections are cut. */
  graceMs: number;
  /** True when no request holds money any more (every admitted request has settled). */
  settled(): boolean;
}

/** How often idle connections are looked for while closing. */
const SWEEP_MS = 50;
/** After cutting connections, how long the cut requests get to write their ledger rows. */
const SETTLE_MS = 5_000;

export async function closeServer(app: FastifyInstance, opts: CloseOptions): Promise<void> {
  const server = app.server;
  const closing = app.close();
  const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
  let cut = false;
  const force = setTimeout(() => {
    cut = true;
    server.closeAllConnections();
  }, opts.graceMs);
  try {
    await closing;
  } finally {
    clearInterval(sweep);
    clearTimeout(force);
  }
  if (!cut) return;
  for (let waited = 0; waited < SETTLE_MS && !opts.settled(); waited += SWEEP_MS) await sleep(SWEEP_MS);
}
