/**
 * The console in a browser: the built renderer (renderer/dist) at `/`, its hashed assets under
 * `/assets/`, and `/login`, which trades a one-time code for a session cookie (session.ts).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packageRoot } from '../core/paths.js';
import type { AuthFailures } from '../keys/failures.js';
import { hostIsLoopback, remoteIsLoopback } from './guard.js';
import { cookieName, PAGE_TOKEN_PARAM, sessionCookie, type ConsoleSessions } from './session.js';

export interface ConsoleOptions {
  sessions: ConsoleSessions;
  /** Failed logins are counted and, after a burst, slowed like wrong keys (keys/failures.ts). */
  failures?: Pick<AuthFailures, 'fail'>;
  /** The built console; renderer/dist of the package by default. */
  distDir?: string;
}

/** Vite writes this placeholder into index.html (vite.config.ts, html.cspNonce); each response gets its own nonce. */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * Nothing but the gateway itself: no inline script, no remote host. Styles need the nonce for the
 * one <style> element the dialogs' scroll lock adds; every stylesheet file is 'self'.
 */
export function consoleCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Tollgate</title>
<p>The console has not been built. Run <code>npm run build</code> in the Tollgate folder, then reload.</p></html>`;

function secureHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('x-frame-options', 'DENY');
}

/** Browsers ask for HTML first; SDKs and scripts probing the base URL keep getting JSON. */
function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('text/html');
}

export async function consoleRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const dist = opts.distDir ?? join(packageRoot(), 'renderer', 'dist');
  const indexPath = join(dist, 'index.html');
  const index = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : NOT_BUILT;

  // Clients probe the base URL before their first call (Claude Code sends HEAD /): keep it trivial.
  app.head('/', async (_req, reply) => reply.code(200).send());
  app.get('/', async (req, reply) => {
    if (!wantsHtml(req.headers.accept)) return { name: 'Tollgate', ok: true };
    const nonce = randomBytes(16).toString('base64');
    return secureHeaders(reply)
      .header('content-security-policy', consoleCsp(nonce))
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(index.replaceAll(NONCE_PLACEHOLDER, nonce));
  });

  if (existsSync(join(dist, 'assets'))) {
    await app.register(fastifyStatic, {
      root: join(dist, 'assets'),
      prefix: '/assets/',
      // One route per file that exists at start, so nothing else under /assets/ is looked up on disk.
      wildcard: false,
      index: false,
      // File names carry a content hash.
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
    });
  }

  app.get<{ Querystring: { code?: string } }>('/login', async (req, reply) => {
    secureHeaders(reply).header('cache-control', 'no-store');
    if (!hostIsLoopback(req.headers.host) || !remoteIsLoopback(req.socket.remoteAddress)) {
      return reply
        .code(403)
        .type('text/plain; charset=utf-8')
        .send('The console answers only on a loopback address (127.0.0.1 or localhost).\n');
    }
    // Link previews and unfurlers send HEAD (or GET without a browser behind it); HEAD must not
    // spend the code, or the user's own click afterwards finds it used.
    if (req.method === 'HEAD') return reply.code(200).type('text/html; charset=utf-8').send();
    const login = typeof req.query.code === 'string' ? opts.sessions.redeem(req.query.code) : undefined;
    // 303 so the address bar (and history) leaves the URL that held the code. The page token rides
    // in the query of this one redirect: the page moves it into its sessionStorage and out of the
    // address bar at once (renderer/lib/console-token.ts); the cookie carries the other half.
    if (!login) {
      // A wrong code is a guess until shown otherwise: counted, and slowed after a burst.
      const wait = opts.failures?.fail() ?? 0;
      if (wait > 0) await sleep(wait);
      return reply.code(303).header('location', '/?login=expired').send();
    }
    return reply
      .code(303)
      .header('set-cookie', sessionCookie(cookieName(req.headers.host), login.id))
      .header('location', `/?${PAGE_TOKEN_PARAM}=${login.pageToken}`)
      .send();
  });
}
