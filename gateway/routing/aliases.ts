/**
 * Model aliases steer requested ids to catalogue models, so a tool that hard-codes model names
 * (Claude Code's haiku background calls, say) can be pointed elsewhere without touching it.
 * Patterns are exact ids or globs where `*` matches any run of characters; the first match wins.
 */
export interface AliasRecord {
  pattern: string;
  model: string;
}

const cache = new Map<string, RegExp>();

function regex(pattern: string): RegExp {
  let r = cache.get(pattern);
  if (!r) {
    r = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    cache.set(pattern, r);
  }
  return r;
}

export function resolveAlias(id: string, aliases: readonly AliasRecord[]): string | undefined {
  return aliases.find((a) => regex(a.pattern).test(id))?.model;
}
