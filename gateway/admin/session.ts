/**
 * Console sessions: how a browser gets into the admin API without ever holding the admin token.
 *
 * A holder of the admin token (the CLI's `tollgate open`, the serve banner, the Electron shell)
 * mints a one-time login code; `GET /login?code=…` trades it for two halves of one session:
 *
 * - an HttpOnly, SameSite=Strict cookie, which script in the page cannot read; and
 * - a page token, handed over once in the login redirect (`/?console=…`), which the page keeps in
 *   its own sessionStorage and sends as CONSOLE_HEADER on every call.
 *
 * Both must match. Browsers do not isolate cookies by port, so any server on another port of
 * 127.0.0.1 that the user visits receives the cookie; the page token never travels on its own (it is
 * not a cookie, and no route hands it out again), so a replayed cookie, with whatever header value,
 * is refused. A cross-site form or image cannot send a custom header either. The Host/Origin guard
 * (guard.ts) still runs first. Sessions live in memory: a restart logs out.
 */
import { randomBytes } from 'node:crypto';
import { tokenMatches } from './token.js';

/** The header every cookie-authorised admin request must carry: the session's page token. */
export const CONSOLE_HEADER = 'x-tollgate-console';

/** The query parameter of the login redirect (and of the CSV link) that carries the page token. */
export const PAGE_TOKEN_PARAM = 'console';

const CODE_TTL_MS = 2 * 60_000;
const SESSION_TTL_MS = 12 * 60 * 60_000;
/** Bounds memory if something mints codes in a loop; the oldest are dropped first. */
const MAX_CODES = 100;
const MAX_SESSIONS = 100;

export interface LoginCode {
  code: string;
  expiresAt: number;
}

/** What a redeemed code gives: the cookie's value and the page token, both needed on each call. */
export interface ConsoleLogin {
  id: string;
  pageToken: string;
}

interface Session {
  expiresAt: number;
  pageToken: string;
}

export type SessionCheck = 'ok' | 'bad_page_token' | 'none';

export class ConsoleSessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A single-use code, valid for two minutes. */
  mintCode(): LoginCode {
    this.sweep();
    const code = randomBytes(24).toString('base64url');
    const expiresAt = this.now() + CODE_TTL_MS;
    this.codes.set(code, expiresAt);
    trim(this.codes, MAX_CODES);
    return { code, expiresAt };
  }

  /** Spends a code: the new session, or undefined when the code is unknown, used or expired. */
  redeem(code: string): ConsoleLogin | undefined {
    const expiresAt = this.codes.get(code);
    if (expiresAt === undefined) return undefined;
    this.codes.delete(code);
    if (expiresAt <= this.now()) return undefined;
    const id = randomBytes(32).toString('base64url');
    const pageToken = randomBytes(32).toString('base64url');
    this.sessions.set(id, { expiresAt: this.now() + SESSION_TTL_MS, pageToken });
    trim(this.sessions, MAX_SESSIONS);
    return { id, pageToken };
  }

  /**
   * `ok` for a live session whose page token matches (each use extends it: a console left open
   * stays logged in); `bad_page_token` for a live cookie without its page token (a replayed cookie,
   * or a request the browser was tricked into sending); `none` for no live session.
   */
  check(id: string | undefined, pageToken: string | undefined): SessionCheck {
    if (!id) return 'none';
    // Looked up by constant-time comparison so that timing reveals nothing about live ids.
    for (const [known, session] of this.sessions) {
      if (!tokenMatches(id, known)) continue;
      if (session.expiresAt <= this.now()) {
        this.sessions.delete(known);
        return 'none';
      }
      if (!pageToken || !tokenMatches(pageToken, session.pageToken)) return 'bad_page_token';
      session.expiresAt = this.now() + SESSION_TTL_MS;
      return 'ok';
    }
    return 'none';
  }

  revoke(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  private sweep(): void {
    const now = this.now();
    for (const [code, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(code);
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
  }
}

function trim(map: Map<string, unknown>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value!);
}

/**
 * The cookie's name carries the port: browsers share cookies across the ports of one host, and
 * two gateways on 127.0.0.1 (a test one beside the real one) must not log each other out.
 */
export function cookieName(hostHeader: string | undefined): string {
  const port = hostHeader?.match(/:(\d+)$/)?.[1] ?? '80';
  return `tollgate_session_${port}`;
}

export function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(name: string, id: string): string {
  return `${name}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`;
}

export function clearedCookie(name: string): string {
  return `${name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}

export type AdminCaller = 'token' | 'session';

/**
 * Who is calling: the admin token as a Bearer header, or a console session cookie together with
 * its page token in CONSOLE_HEADER. `missing_header` is a live session cookie without its page
 * token: a replayed cookie, or a request the browser may have been tricked into sending.
 */
export function adminCaller(
  headers: { authorization?: string; cookie?: string; host?: string; console?: string },
  token: string,
  sessions: ConsoleSessions,
): AdminCaller | 'missing_header' | undefined {
  const auth = headers.authorization ?? '';
  const presented = auth.toLowerCase().startsWith('bearer ') ? auth.slice(7) : '';
  if (presented && tokenMatches(presented, token)) return 'token';
  const id = readCookie(headers.cookie, cookieName(headers.host));
  const verdict = sessions.check(id, headers.console);
  if (verdict === 'none') return undefined;
  return verdict === 'ok' ? 'session' : 'missing_header';
}
