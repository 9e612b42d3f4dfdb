import { readFile, rm } from 'node:fs/promises';
import { GatewayError } from '../core/errors.js';
import { modeOf, readText, removeEmptyDirs, sha256, writeAtomic, writeTarget } from './files.js';
import { FORMATS, pruneEmptyTables, valueAt, type Change } from './formats/index.js';
import { maskSecret } from './plan.js';
import { readRecord, removeRecord, saveBackup, withToolLock } from './records.js';
import { toolById } from './tools.js';
import type { ConnectContext, FileRecord, ToolId } from './types.js';

/**
 * What disconnect did to one file:
 * - `restored`: put back byte for byte as it was before connect;
 * - `removed`: the file did not exist before connect and is gone again;
 * - `cleaned`: changed by hand since connect, so only Tollgate's own entries were taken out
 *   (and their earlier values put back), the user's changes kept;
 * - `missing`: deleted by hand since connect; left alone.
 */
export type FileAction = 'restored' | 'removed' | 'cleaned' | 'missing';

export interface FileOutcome {
  path: string;
  action: FileAction;
  notes: string[];
}

export interface DisconnectResult {
  tool: ToolId;
  name: string;
  keyName: string;
  files: FileOutcome[];
}

export interface DisconnectOptions {
  /**
   * Put every file back exactly as it was before connect even when it was changed by hand since
   * (or cannot be parsed any more). The file as it is now is kept as a backup first.
   */
  force?: boolean;
}

/** A file's new state, computed for every file before any is written. */
interface Step {
  outcome: FileOutcome;
  target: string;
  /** New content, or null to delete the file. Undefined: leave it. */
  write?: string | null;
  mode: number;
  createdDirs: string[];
  keepCurrent?: string;
}

/**
 * Undoes connect. A file unchanged since connect is put back byte for byte (or removed, with the
 * folders connect created, when it did not exist). A file changed by hand since is never
 * overwritten silently: Tollgate takes out only its own entries whose values are still the ones
 * it wrote, puts back what they held before, and keeps everything else; `force` restores the
 * backup instead. Nothing is written unless every file can be handled.
 */
export async function disconnectTool(
  ctx: ConnectContext,
  toolId: string,
  options: DisconnectOptions = {},
): Promise<DisconnectResult> {
  const tool = toolById(toolId);
  return withToolLock(ctx.dataDir, tool.id, async () => {
    const record = await readRecord(ctx.dataDir, tool.id);
    if (!record) {
      throw new GatewayError(
        'invalid_request',
        `${tool.name} was not connected by Tollgate, so there is nothing to undo.`,
        { code: 'not_connected', status: 404 },
      );
    }
    const steps: Step[] = [];
    for (const file of record.files)
      steps.push(await planFile(file, toolFormat(tool.id, file.id), options.force === true));
    for (const step of steps) await carryOut(ctx, tool.id, step);
    // After every file: one tool's files can share a folder that connect created for the first.
    await removeEmptyDirs(steps.filter((s) => s.write === null).flatMap((s) => s.createdDirs));
    await removeRecord(ctx.dataDir, tool.id);
    return { tool: tool.id, name: tool.name, keyName: record.keyName, files: steps.map((s) => s.outcome) };
  });
}

function toolFormat(tool: ToolId, fileId: string): (typeof FORMATS)[keyof typeof FORMATS] {
  const file = toolById(tool).files.find((f) => f.id === fileId);
  if (!file) throw new Error(`${tool} has no file "${fileId}"`);
  return FORMATS[file.format];
}

async function planFile(
  file: FileRecord,
  format: (typeof FORMATS)[keyof typeof FORMATS],
  force: boolean,
): Promise<Step> {
  const target = await writeTarget(file.path);
  const current = await readText(target);
  const original = file.backup === null ? null : await readBackup(file);
  const mode = file.mode ?? (await modeOf(target)) ?? 0o600;
  const base = { target, mode, createdDirs: file.createdDirs };
  const restore = (notes: string[]): Step => ({
    ...base,
    outcome: { path: file.path, action: original === null ? 'removed' : 'restored', notes },
    write: original,
  });

  if (current === null) {
    if (!file.existed) return { ...base, outcome: { path: file.path, action: 'removed', notes: [] }, write: null };
    if (force) return restore(['it had been deleted since connect; put back as it was before connect']);
    return {
      ...base,
      outcome: {
        path: file.path,
        action: 'missing',
        notes: [`deleted since connect; left alone (the file as it was before connect is kept at ${file.backup})`],
      },
    };
  }
  if (sha256(current) === file.afterSha256 && file.exact) return restore([]);
  if (force)
    return {
      ...restore(['changed by hand since connect; put back as it was before connect anyway (--force)']),
      keepCurrent: withoutOwnKey(current, file.entries),
    };

  // Changed by hand: take out Tollgate's own entries only.
  let doc: Record<string, unknown>;
  try {
    doc = format.read(current, file.path);
  } catch (e) {
    const why = e instanceof GatewayError ? e.message.replace(/ Tollgate changed nothing.*$/, '') : String(e);
    throw new GatewayError(
      'invalid_request',
      `${why}. Tollgate cannot take its entries out of it and changed nothing: fix the file, or disconnect with --force to put back the file as it was before connect (the current file is kept as a backup).`,
      { code: 'file_invalid', status: 409 },
    );
  }
  const before = original === null ? {} : format.read(original, `${file.path} (backup)`);
  const notes: string[] = [];
  const changes: Change[] = [];
  for (const entry of file.entries) {
    const now = valueAt(doc, entry.path);
    const name = entry.path.join('.');
    if (now === undefined) continue;
    if (valueSha(now) === entry.sha256) changes.push({ path: entry.path, value: valueAt(before, entry.path) });
    else
      notes.push(
        `kept ${name}: ${entry.role === 'key' ? 'it was replaced by hand' : `changed by hand to ${JSON.stringify(now)}`} since connect`,
      );
  }
  let text = format.edit(current, changes);
  text = pruneEmptyTables(
    format,
    text,
    file.entries.map((e) => e.path),
    before,
  );
  notes.unshift("changed by hand since connect: took out only Tollgate's entries and kept the rest");
  if (!file.existed && isEmptyDocument(format, text))
    return { ...base, outcome: { path: file.path, action: 'removed', notes }, write: null };
  return {
    ...base,
    mode: (await modeOf(target)) ?? mode,
    outcome: { path: file.path, action: 'cleaned', notes },
    write: text,
  };
}

function isEmptyDocument(format: (typeof FORMATS)[keyof typeof FORMATS], text: string): boolean {
  const bare = text.replace(/\s/g, '');
  return Object.keys(format.read(text, '')).length === 0 && (bare === '' || bare === '{}');
}

/**
 * The copy kept of a file replaced with --force shows Tollgate's own key masked, found among the
 * file's `sk-` tokens by the hash connect recorded: backups hold no Tollgate secret.
 */
function withoutOwnKey(text: string, entries: FileRecord['entries']): string {
  const hashes = new Set(entries.filter((e) => e.role === 'key').map((e) => e.sha256));
  return text.replace(/sk-[A-Za-z0-9]+/g, (token) => (hashes.has(sha256(token)) ? maskSecret(token) : token));
}

/** The hash connect recorded for a value: of the string itself, as a key's hash is. */
function valueSha(value: unknown): string {
  return sha256(typeof value === 'string' ? value : JSON.stringify(value));
}

async function readBackup(file: FileRecord): Promise<string> {
  let text: string;
  try {
    text = await readFile(file.backup!, 'utf8');
  } catch {
    throw new GatewayError(
      'internal',
      `The backup of ${file.path} (${file.backup}) is gone, so Tollgate cannot undo the connect. The file was left as it is.`,
      { code: 'backup_missing' },
    );
  }
  if (sha256(text) !== file.beforeSha256) {
    throw new GatewayError(
      'internal',
      `The backup of ${file.path} (${file.backup}) was changed, so Tollgate cannot undo the connect exactly. The file was left as it is.`,
      { code: 'backup_changed' },
    );
  }
  return text;
}

async function carryOut(ctx: ConnectContext, tool: ToolId, step: Step): Promise<void> {
  if (step.keepCurrent !== undefined) {
    const kept = await saveBackup(
      ctx.dataDir,
      tool,
      step.outcome.path.replace(/\W+/g, '_'),
      step.keepCurrent,
      'replaced',
    );
    step.outcome.notes.push(`the file as it was is kept at ${kept}`);
  }
  if (step.write === undefined) return;
  if (step.write === null) {
    await rm(step.target, { force: true });
  } else {
    await writeAtomic(step.target, step.write, step.mode);
  }
}
