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
