import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GatewayError } from '../core/errors.js';
import { readText, writeAtomic } from './files.js';
import type { ConnectRecord, ToolId } from './types.js';

/**
 * What connect did, kept in the data dir: `connect/<tool>.json` (the record, never a secret),
 * `connect/backups/<tool>/` (the files as they were before), and `connect/<tool>.lock` while a
 * connect or disconnect of that tool runs. One file per tool, so two tools never contend.
 */

const PRIVATE = 0o600;
/** A lock older than this was left by a process that died mid-way. */
const STALE_LOCK_MS = 2 * 60_000;

export const connectDir = (dataDir: string): string => join(dataDir, 'connect');
const recordPath = (dataDir: string, tool: ToolId): string => join(connectDir(dataDir), `${tool}.json`);

export async function readRecord(dataDir: string, tool: ToolId): Promise<ConnectRecord | undefined> {
  const text = await readText(recordPath(dataDir, tool));
  return text === null ? undefined : (JSON.parse(text) as ConnectRecord);
}

export async function listRecords(dataDir: string): Promise<ConnectRecord[]> {
  let names: string[];
  try {
    names = await readdir(connectDir(dataDir));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: ConnectRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    out.push(JSON.parse(await readFile(join(connectDir(dataDir), name), 'utf8')) as ConnectRecord);
  }
  return out;
}

export async function writeRecord(dataDir: string, record: ConnectRecord): Promise<void> {
  await mkdir(connectDir(dataDir), { recursive: true, mode: 0o700 });
  await writeAtomic(recordPath(dataDir, record.tool), JSON.stringify(record, null, 2) + '\n', PRIVATE);
}

export async function removeRecord(dataDir: string, tool: ToolId): Promise<void> {
  await rm(recordPath(dataDir, tool), { force: true });
}

/** Keeps a copy of a user's file; private, since config files can hold credentials. */
export async function saveBackup(
  dataDir: string,
  tool: ToolId,
  fileId: string,
  text: string,
  label: string,
): Promise<string> {
  const dir = join(connectDir(dataDir), 'backups', tool);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = join(dir, `${fileId}.${label}.${stamp}`);
  await writeAtomic(path, text, PRIVATE);
  return path;
}

/** Runs `fn` holding the tool's lock; a second connect or disconnect of the same tool is refused meanwhile. */
export async function withToolLock<T>(dataDir: string, tool: ToolId, fn: () => Promise<T>): Promise<T> {
  await mkdir(connectDir(dataDir), { recursive: true, mode: 0o700 });
  const lock = join(connectDir(dataDir), `${tool}.lock`);
  const handle = await acquire(lock, tool);
  try {
    return await fn();
  } finally {
    await handle.close();
    await rm(lock, { force: true });
  }
}

async function acquire(lock: string, tool: ToolId): Promise<import('node:fs/promises').FileHandle> {
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lock, 'wx', PRIVATE);
      await handle.writeFile(`${process.pid}\n`);
      return handle;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (attempt === 0 && age > STALE_LOCK_MS) {
        await rm(lock, { force: true });
        continue;
      }
      throw new GatewayError(
        'invalid_request',
        `Another connect or disconnect of ${tool} is running; try again when it has finished.`,
        { code: 'connect_busy', status: 409 },
      );
    }
  }
}
