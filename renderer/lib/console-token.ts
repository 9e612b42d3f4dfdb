/**
 * The page's half of the console session (gateway/admin/session.ts). The login redirect lands on
 * `/?console=<token>`; the token moves into this tab's sessionStorage and out of the address bar
 * before anything renders. sessionStorage belongs to this origin (scheme, host and port), so a page
 * served by another port of 127.0.0.1 cannot read it, while the session cookie, which every port
 * receives, is useless without it.
 */
const PARAM = 'console';
const STORAGE_KEY = 'tollgate.console';

function take(): string {
  const url = new URL(window.location.href);
  const fresh = url.searchParams.get(PARAM);
  if (fresh === null) return window.sessionStorage.getItem(STORAGE_KEY) ?? '';
  window.sessionStorage.setItem(STORAGE_KEY, fresh);
  url.searchParams.delete(PARAM);
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  return fresh;
}

const token = take();

/** This tab's page token ('' before a login: the gateway then answers that the session is missing). */
export function consoleToken(): string {
  return token;
}
