import { parse, patch } from '@decimalturn/toml-patch';
import { invalidFile, isPlainObject, type Change, type FileFormat } from './format.js';

/**
 * TOML (Codex's config.toml), edited with toml-patch: it diffs the parsed document against the
 * wanted one and patches only the entries that differ, keeping comments and layout elsewhere.
 * New tables up to two levels deep become `[a.b]` sections rather than inline tables.
 */
const LAYOUT = { inlineTableStart: 3 };

export const toml: FileFormat = {
  id: 'toml',
  read(text, file) {
    try {
      return parse(text) as Record<string, unknown>;
    } catch (e) {
      // toml-patch's message is "Error parsing TOML (line, column):" followed by the line and the reason.
      const lines = (e as Error).message.split('\n').filter((l) => l.trim() !== '' && l.trim() !== '^');
      throw invalidFile(file, 'TOML', lines.join(' ').replace(/^Error parsing TOML /, 'at '));
    }
  },
  edit(text, changes: readonly Change[]) {
    const doc = parse(text) as Record<string, unknown>;
    for (const change of changes) setAt(doc, change.path, change.value);
    const out = patch(text, doc, LAYOUT);
    return text.trim() === '' && out !== '' && !out.endsWith('\n') ? out + '\n' : out;
  },
};

function setAt(doc: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = doc;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!isPlainObject(next)) {
      if (value === undefined) return;
      node[key] = {};
    }
    node = node[key] as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
}
