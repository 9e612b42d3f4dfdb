/**
 * Key secrets the playground may use, held in this tab's memory only: never in localStorage,
 * sessionStorage, a cookie or a URL, and gone on reload. A secret gets here only when the person
 * asks for it (a playground key, "Try it in the playground" on a new key, or pasting one).
 */
const secrets = new Map<string, string>();

export function rememberSecret(keyName: string, secret: string): void {
  secrets.set(keyName, secret);
}

export function secretFor(keyName: string): string | undefined {
  return secrets.get(keyName);
}

export function forgetSecret(keyName: string): void {
  secrets.delete(keyName);
}
