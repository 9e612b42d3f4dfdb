import { readText, writeTarget } from './files.js';
import { FORMATS, valueAt } from './formats/index.js';
import { entrySlots, toolById } from './tools.js';
import type { Where } from './types.js';

/**
 * The key a tool's files hold now, read where connect writes it (`env.ANTHROPIC_AUTH_TOKEN`,
 * the Codex provider's bearer token, `GEMINI_API_KEY` in `.env`); null when the file or the
 * entry is absent, or the file does not parse. Tollgate keeps only hashes of its keys, so this
 * is the one place a connected tool's secret can be found again: to reuse the key on a
 * reconnect, and for `tollgate env`.
 */
export async function keyInFiles(where: Where, toolId: string): Promise<string | null> {
  const tool = toolById(toolId);
  const slot = entrySlots(tool).find((e) => e.role === 'key')!;
  const file = tool.files.find((f) => f.id === slot.file)!;
  const path = file.locate(where);
  const text = await readText(await writeTarget(path));
  if (text === null) return null;
  try {
    const value = valueAt(FORMATS[file.format].read(text, path), slot.path);
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}
