/**
 * Console sessions: how a browser gets into the admin API without ever holding the admin token.
 *
 * A holder of the admin token (the CLI's `tollgate open`, the serve banner, the Electron shell)
 * mints a one-time login code; `GET /login?code=…` trades it for an HttpOnly, SameSite=Strict
 * cookie and redirects to `/`, so the code leaves the address bar at once and the token never
 * reaches page storage or a URL. A cookie is sent by the browser on its own, so cookie-authorised
 * requests must also carry CONSOLE_HEADER: a cross-site form or image cannot send a custom header,
 * and a cross-site fetch that tries needs a CORS preflight the gateway never grants. The
 * Host/Origin guard (guard.ts) still runs first. Sessions live in memory: a restart logs out.
 */
import { randomBytes } from 'node:crypto';
import { tokenMatches } from './token.js';

/** The header every cookie-authorised admin request must carry (any non-empty value). */
export const CONSOLE_HEADER = 'x-tollgate-console';

const CODE_TTL_MS = 2 * 60_000;
const SESSION_TTL_MS = 12 * 60 * 60_000;
/** Bounds memory if something mints codes in a loop; the oldest are dropped first. */
const MAX_CODES = 100;
const MAX_SESSIONS = 100;

export interface LoginCode {
  code: string;
  expiresAt: number;
}

export class ConsoleSessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

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

  /** Spends a code: the new session id, or undefined when the code is unknown, used or expired. */
  redeem(code: string): string | undefined {
    const expiresAt = this.codes.get(code);
    if (expiresAt === undefined) return undefined;
    this.codes.delete(code);
    if (expiresAt <= this.now()) return undefined;
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, this.now() + SESSION_TTL_MS);
    trim(this.sessions, MAX_SESSIONS);
    return id;
  }

  /** True for a live session; each use extends it (a console left open stays logged in). */
  check(id: string | undefined): boolean {
    if (!id) return false;
    // Looked up by constant-time comparison so that timing reveals nothing about live ids.
    for (const [known, expiresAt] of this.sessions) {
      if (!tokenMatches(id, known)) continue;
      if (expiresAt <= this.now()) {
        this.sessions.delete(known);
        return false;
      }
      this.sessions.set(known, this.now() + SESSION_TTL_MS);
      return true;
    }
    return false;
  }

  revoke(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  private sweep(): void {
    const now = this.now();
    for (const [code, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(code);
    for (const [id, expiresAt] of this.sessions) if (expiresAt <= now) this.sessions.delete(id);
  }
}

function trim(map: Map<string, number>, max: number): void {
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
 * CONSOLE_HEADER. `missing_header` is a live session cookie without that header: a request the
 * browser may have been tricked into sending.
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
  if (!sessions.check(id)) return undefined;
  return headers.console ? 'session' : 'missing_header';
}
