/**
 * What the console window may load, navigate to and ask of main. Pure functions, so the rules are
 * unit-tested without Electron; window.ts applies them.
 */

/**
 * The console's Content-Security-Policy, set by main on every response from the gateway origin
 * (in addition to any policy the gateway sends: a browser enforces both). Scripts only from the
 * gateway itself, no eval, no plugins, no frames, no remote anything. Inline styles are allowed
 * because React style attributes and chart libraries set them; inline scripts are not.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * The login URL taking the console to `page`, a route of its hash router (`/connect`). The login
 * answers with a redirect to `/`, and a browser keeps the fragment across a redirect whose target
 * has none, so `…/login?code=…#/connect` lands on `/#/connect`. Only a plain path is taken.
 */
export function consolePageUrl(loginUrl: string, page: string | undefined): string {
  if (page === undefined || !/^\/[a-z0-9/-]*$/.test(page)) return loginUrl;
  return `${loginUrl.split('#')[0]}#${page}`;
}

/** `http://127.0.0.1:4141/login?code=…` → `http://127.0.0.1:4141`. */
export function originOf(url: string): string | undefined {
  const u = parse(url);
  return u && (u.protocol === 'http:' || u.protocol === 'https:') ? u.origin : undefined;
}

/** A link the user may open in their browser: https only, no credentials in the URL. */
export function isExternalLink(url: string): boolean {
  const u = parse(url);
  return !!u && u.protocol === 'https:' && u.username === '' && u.password === '' && url.length <= 4096;
}

export type NavigationVerdict = 'allow' | 'open-external' | 'deny';

/**
 * The window stays on the console: same-origin navigation is allowed (the login redirect, a
 * reload); an https link goes to the user's browser; anything else (file:, javascript:, another
 * http origin, a custom scheme) is refused.
 */
export function navigationVerdict(url: string, consoleOrigin: string): NavigationVerdict {
  if (originOf(url) === consoleOrigin) return 'allow';
  return isExternalLink(url) ? 'open-external' : 'deny';
}

/**
 * Requests the console's session may make: the gateway origin, plus data: and blob: URLs the page
 * builds itself (a CSV export, an inline image). Everything else (remote content) is cancelled.
 */
export function requestAllowed(url: string, consoleOrigin: string): boolean {
  if (url.startsWith('data:')) return true;
  if (url.startsWith('blob:')) return originOf(url.slice(5)) === consoleOrigin;
  if (url.startsWith('devtools:')) return true;
  return originOf(url) === consoleOrigin;
}

/**
 * The one permission the console gets: writing the clipboard through the standard API
 * (`clipboard-sanitized-write`, what `navigator.clipboard.writeText` asks for), from its own top
 * frame on the gateway origin. The console copies through the bridge's `copyText` inside the app
 * (renderer/lib/clipboard.ts); this keeps the standard API working too, since a write grants
 * nothing the bridge does not. Everything else (clipboard reads, camera, notifications, …) is
 * refused. `requesting` is the requesting frame's URL or origin; either reduces to its origin.
 */
export function permissionAllowed(
  permission: string,
  requesting: string | undefined,
  isMainFrame: boolean,
  consoleOrigin: string | undefined,
): boolean {
  if (permission !== 'clipboard-sanitized-write' || !isMainFrame || consoleOrigin === undefined) return false;
  return requesting !== undefined && originOf(requesting) === consoleOrigin;
}

export interface IpcSender {
  /** The id of the webContents that sent the message. */
  webContentsId: number;
  /** The sending frame's URL; null when the frame is gone. */
  frameUrl: string | null;
  /** True when the sender is the top frame of its webContents. */
  isMainFrame: boolean;
}

/** IPC is answered only for the console window's own top frame, on the console's origin. */
export function isTrustedSender(
  sender: IpcSender,
  consoleWebContentsId: number | undefined,
  consoleOrigin: string | undefined,
): boolean {
  if (consoleWebContentsId === undefined || consoleOrigin === undefined) return false;
  if (sender.webContentsId !== consoleWebContentsId || !sender.isMainFrame || sender.frameUrl === null) return false;
  return originOf(sender.frameUrl) === consoleOrigin;
}
