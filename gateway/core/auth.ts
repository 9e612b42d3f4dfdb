/**
 * How a line sends its upstream credential. A preset names its vendor's style (`auth` in
 * preset.json) and a line made from it keeps it; other lines use their wire format's usual style.
 */
export const AUTH_STYLES = ['bearer', 'x-api-key', 'x-goog-api-key', 'none'] as const;
export type AuthStyle = (typeof AUTH_STYLES)[number];

/** The header carrying `credential` in the given style; none for `none` (a local server that takes no key). */
export function authHeaders(style: AuthStyle, credential: string): Record<string, string> {
  switch (style) {
    case 'bearer':
      return { authorization: `Bearer ${credential}` };
    case 'x-api-key':
      return { 'x-api-key': credential };
    case 'x-goog-api-key':
      return { 'x-goog-api-key': credential };
    case 'none':
      return {};
  }
}

/**
 * Whether an environment variable's name says it holds a credential (OPENAI_API_KEY, HF_TOKEN,
 * MY_SECRET). A line reads its key from the variable it names and sends the value upstream, so a
 * name such as PATH or HOME would send that value to a third party as a bearer token.
 */
export function isCredentialVariable(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i.test(name);
}

export const CREDENTIAL_VARIABLE_RULE =
  'an environment variable whose name ends in KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL (OPENAI_API_KEY, HF_TOKEN)';
