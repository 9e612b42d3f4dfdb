import { createTwoFilesPatch } from 'diff';
import { GatewayError } from '../core/errors.js';
import { readText, sha256, writeTarget } from './files.js';
import { FORMATS, isPlainObject, pruneEmptyTables, valueAt, type Change, type FileFormat } from './formats/index.js';
import { readRecord } from './records.js';
import { toolById } from './tools.js';
import type { Entry, FileRecord, FormatId, ToolId, Where, Wiring } from './types.js';

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
 * Given the data dir, a reconnect also takes out what the last connect wrote and this one does
 * not (a model entry keyed by the old model's id), as disconnect would.
 */
export async function planConnect(
  where: Where & { dataDir?: string },
  toolId: string,
  wiring: Wiring,
  options: PlanOptions = {},
): Promise<ConnectPlan> {
  const tool = toolById(toolId);
  const entries = tool.entries(wiring);
  const record = where.dataDir === undefined ? undefined : await readRecord(where.dataDir, tool.id);
  const files: FilePlan[] = [];
  for (const file of tool.files) {
    const path = file.locate(where);
    const target = await writeTarget(path);
    const before = await readText(target);
    const format = FORMATS[file.format];
    const own = entries.filter((e) => e.file === file.id);
    const doc = format.read(before ?? '', path);
    for (const entry of own) checkParents(doc, entry.path, path);
    const written = format.edit(
      before ?? '',
      own.map((e) => ({ path: e.path, value: e.value })),
    );
    const previous = record?.files.find((f) => f.id === file.id && f.path === path);
    const after = previous ? await withoutStale(format, written, doc, own, previous) : written;
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

/**
 * Takes out the entries an earlier connect wrote to this file that the new one does not write,
 * where they still hold the value written (the backup's value, if it had one, comes back), and
 * the tables that leaves empty and that the file did not have before.
 */
async function withoutStale(
  format: FileFormat,
  text: string,
  doc: Record<string, unknown>,
  own: readonly Entry[],
  previous: FileRecord,
): Promise<string> {
  const kept = new Set(own.map((e) => JSON.stringify(e.path)));
  const stale = previous.entries.filter((e) => !kept.has(JSON.stringify(e.path)));
  if (stale.length === 0) return text;
  const original = previous.backup === null ? null : await readText(previous.backup);
  const before = original === null ? {} : format.read(original, previous.backup!);
  const changes: Change[] = [];
  for (const entry of stale) {
    const now = valueAt(doc, entry.path);
    if (now !== undefined && sha256(typeof now === 'string' ? now : JSON.stringify(now)) === entry.sha256)
      changes.push({ path: entry.path, value: valueAt(before, entry.path) });
  }
  if (changes.length === 0) return text;
  return pruneEmptyTables(
    format,
    format.edit(text, changes),
    changes.map((c) => c.path),
    before,
  );
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
