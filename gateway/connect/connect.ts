import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { GatewayError } from '../core/errors.js';
import { makeDirs, modeOf, readText, removeEmptyDirs, sha256, writeAtomic } from './files.js';
import { planConnect, type ConnectPlan, type FilePlan } from './plan.js';
import { readRecord, saveBackup, withToolLock, writeRecord } from './records.js';
import { toolById } from './tools.js';
import type { ConnectContext, ConnectRecord, FileRecord, ToolId, Wiring } from './types.js';

/** A new file holds the key's secret, so only its owner may read it. */
const NEW_FILE_MODE = 0o600;

export interface ConnectInput {
  tool: string;
  wiring: Wiring;
  /** The name of the Tollgate key in `wiring.secret`, for the record and the status view. */
  keyName: string;
  /** Connect created the key for this tool, so disconnect may delete it (see ConnectRecord). */
  keyCreated?: boolean;
  /**
   * SHA-256 of each file's content (null: absent) as a dry run saw it. When given, connect
   * refuses if a file changed since, so what is written is exactly the diff that was shown.
   */
  expect?: Record<string, string | null>;
}

/** A file written by this connect, with what is needed to put it back. */
interface Written {
  plan: FilePlan;
  mode: number | null;
  createdDirs: string[];
}

export interface ConnectResult {
  plan: ConnectPlan;
  record: ConnectRecord;
}

/**
 * Points a tool at Tollgate: writes each of its files atomically (keeping its permission bits),
 * keeps a backup of each file as it was, and records what it did. Connecting a connected tool
 * again (a new model, say) keeps the original backup, so disconnect still goes back to the file
 * as it was before the first connect. If a write fails, the files already written are put back.
 */
export async function connectTool(ctx: ConnectContext, input: ConnectInput): Promise<ConnectResult> {
  return withToolLock(ctx.dataDir, toolById(input.tool).id, async () => {
    const fresh = await planConnect(ctx, input.tool, input.wiring);
    checkExpected(fresh, input.expect);
    const previous = await readRecord(ctx.dataDir, fresh.tool);
    const files: FileRecord[] = [];
    const written: Written[] = [];
    const now = new Date().toISOString();
    try {
      for (const file of fresh.files) {
        files.push(
          await writeFile(
            ctx,
            fresh.tool,
            file,
            previous?.files.find((f) => f.id === file.id && f.path === file.path),
            written,
          ),
        );
      }
      const record: ConnectRecord = {
        tool: fresh.tool,
        connectedAt: previous?.connectedAt ?? now,
        updatedAt: now,
        origin: input.wiring.origin,
        keyName: input.keyName,
        // A reconnect with the same key keeps knowing that connect made it.
        keyCreated: input.keyCreated === true || (previous?.keyName === input.keyName && previous.keyCreated === true),
        model: input.wiring.model,
        smallModel: input.wiring.smallModel ?? null,
        files,
      };
      await writeRecord(ctx.dataDir, record);
      return { plan: fresh, record };
    } catch (e) {
      await rollBack(written);
      throw e;
    }
  });
}

function checkExpected(plan: ConnectPlan, expect: ConnectInput['expect']): void {
  if (!expect) return;
  for (const file of plan.files) {
    if (file.id in expect && expect[file.id] !== file.beforeSha256) {
      throw new GatewayError(
        'invalid_request',
        `${file.path} changed since the preview; look at the new diff and connect again.`,
        { code: 'file_changed', status: 409 },
      );
    }
  }
}

async function writeFile(
  ctx: ConnectContext,
  tool: ToolId,
  file: FilePlan,
  previous: FileRecord | undefined,
  written: Written[],
): Promise<FileRecord> {
  const mode = await modeOf(file.target);
  const beforeSha = file.before === null ? null : sha256(file.before);
  // Unchanged since Tollgate last wrote it.
  const continues = previous !== undefined && file.before !== null && beforeSha === previous.afterSha256;
  let createdDirs: string[] = [];
  if (file.before !== file.after) {
    createdDirs = file.before === null ? await makeDirs(dirname(file.target)) : [];
    written.push({ plan: file, mode, createdDirs });
    await writeAtomic(file.target, file.after, writeMode(file, mode));
  }
  const entries = file.entries.map((e) => ({ path: e.path, role: e.role, sha256: sha256(e.value) }));
  if (previous) {
    // Connected before: the first connect's backup stays the file "as it was before Tollgate",
    // so disconnect returns to it. Byte-exact undo survives only while no one else wrote the file.
    return {
      ...previous,
      afterSha256: sha256(file.after),
      exact: previous.exact && continues,
      createdDirs: [...previous.createdDirs, ...createdDirs],
      entries,
    };
  }
  return {
    id: file.id,
    path: file.path,
    existed: file.before !== null,
    mode,
    beforeSha256: beforeSha,
    afterSha256: sha256(file.after),
    backup: file.before === null ? null : await saveBackup(ctx.dataDir, tool, file.id, file.before, 'before'),
    createdDirs,
    exact: true,
    entries,
  };
}

/**
 * The mode a connected file is written with: a new one 0600; an existing one keeps its owner's
 * bits, and loses the group's and others' when it holds the key (a 0644 settings file would leave
 * the key readable by every user of the machine). The record keeps the mode it had, and disconnect
 * gives it back with the key taken out.
 */
function writeMode(file: FilePlan, mode: number | null): number {
  if (mode === null) return NEW_FILE_MODE;
  return file.entries.some((e) => e.role === 'key') ? mode & ~0o077 : mode;
}

async function rollBack(written: Written[]): Promise<void> {
  for (const { plan, mode, createdDirs } of written.reverse()) {
    const now = await readText(plan.target);
    if (now !== plan.after) continue;
    if (plan.before === null) await rm(plan.target, { force: true });
    else await writeAtomic(plan.target, plan.before, mode ?? NEW_FILE_MODE);
    await removeEmptyDirs(createdDirs);
  }
}
