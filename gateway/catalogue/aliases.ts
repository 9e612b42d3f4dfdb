import type { AliasRecord } from '../store/types.js';

/** The catalogue model an alias steers a requested id to: the first alias whose pattern matches wins. */

const cache = new Map<string, RegExp>();

function regex(pattern: string): RegExp {
  let r = cache.get(pattern);
  if (!r) {
    r = new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    cache.set(pattern, r);
  }
  return r;
}

export function resolveAlias(id: string, aliases: readonly AliasRecord[]): string | undefined {
  return aliases.find((a) => regex(a.pattern).test(id))?.model;
}
