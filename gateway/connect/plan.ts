import { createTwoFilesPatch } from 'diff';
import { GatewayError } from '../core/errors.js';
import { readText, sha256, writeTarget } from './files.js';
import { FORMATS, isPlainObject, valueAt } from './formats/index.js';
import { toolById } from './tools.js';
import type { Entry, FormatId, ToolId, Where, Wiring } from './types.js';

/** One file as connect would leave it. */
export interface FilePlan {
  id: string;
  format: FormatId;
  /** Where the tool reads the file. */
  path: string;
  /** Where it is written: the symlink's target when the path is a link. */
  target: string;
  before: string | null;
  /** SHA-256 of `before` (null: absent), to pass back as `expect` when applying a previewed plan. */
  beforeSha256: string | null;
  after: string;
  entries: Entry[];
  /** Unified diff from before to after, with the key's secret masked. */
  diff: string;
}

export interface ConnectPlan {
  tool: ToolId;
  name: string;
  files: FilePlan[];
  /** False when the files already hold exactly these entries. */
  changes: boolean;
}

export interface PlanOptions {
  /**
   * How the diff shows the key; `sk-…` and its last four characters by default. A preview made
   * before the key exists says so instead (`<new key "codex">`).
   */
  secretShownAs?: string;
}

/**
 * Computes what connect would write, reading the tool's files and changing nothing. A file that
 * does not parse, or a key on the way that is not a table, fails here, before anything is written.
 */
export async function planConnect(
  where: Where,
  toolId: string,
  wiring: Wiring,
  options: PlanOptions = {},
): Promise<ConnectPlan> {
  const tool = toolById(toolId);
  const entries = tool.entries(wiring);
  const files: FilePlan[] = [];
  for (const file of tool.files) {
    const path = file.locate(where);
    const target = await writeTarget(path);
    const before = await readText(target);
    const format = FORMATS[file.format];
    const own = entries.filter((e) => e.file === file.id);
    const doc = format.read(before ?? '', path);
    for (const entry of own) checkParents(doc, entry.path, path);
    const after = format.edit(
      before ?? '',
      own.map((e) => ({ path: e.path, value: e.value })),
    );
    files.push({
      id: file.id,
      format: file.format,
      path,
      target,
      before,
      beforeSha256: before === null ? null : sha256(before),
      after,
      entries: own,
      diff: unifiedDiff(path, before, after, wiring.secret, options.secretShownAs),
    });
  }
  return { tool: tool.id, name: tool.name, files, changes: files.some((f) => f.before !== f.after) };
}

/** Each key on the way to an entry must be a table (or absent): Tollgate never replaces a value of another kind. */
function checkParents(doc: Record<string, unknown>, path: readonly string[], file: string): void {
  for (let i = 1; i < path.length; i++) {
    const value = valueAt(doc, path.slice(0, i));
    if (value !== undefined && !isPlainObject(value)) {
      throw new GatewayError(
        'invalid_request',
        `${file}: "${path.slice(0, i).join('.')}" is ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}, not a table, so Tollgate cannot put "${path.join('.')}" in it. Nothing was changed.`,
        {
          code: 'file_invalid',
          status: 409,
        },
      );
    }
  }
}

/** Shows `sk-…` + the last four characters, as the key list does. */
export function maskSecret(secret: string): string {
  return secret.startsWith('sk-') && secret.length > 12 ? `sk-…${secret.slice(-4)}` : secret;
}

export function unifiedDiff(
  path: string,
  before: string | null,
  after: string,
  secret: string,
  shownAs = maskSecret(secret),
): string {
  if (before === after) return '';
  const hide = (text: string): string => (secret === '' ? text : text.split(secret).join(shownAs));
  return createTwoFilesPatch(
    before === null ? '/dev/null' : path,
    path,
    hide(before ?? ''),
    hide(after),
    undefined,
    undefined,
    { context: 3 },
  );
}
