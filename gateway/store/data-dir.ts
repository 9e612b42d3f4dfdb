import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readdirSync,
  statfsSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';

/** The data dir cannot be used as it is: read-only, full, or a store in it damaged. Printed as is by the CLI. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/**
 * Creates the data dir, or checks an existing one, before anything is written there: it must be
 * writable, and it is made private to the user (0700, files 0600), since it holds the ledger, the
 * admin token and the key hashes. A dir created by an older build (0755, files 0644) is tightened.
 */
export function prepareDataDir(dataDir: string): void {
  if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory() === false)
    throw new DataDirError(`The data dir ${dataDir} is a file, not a directory: give --data-dir a directory.`);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    throw storeError(err, `The data dir ${dataDir}`, dataDir) ?? err;
  }
  if (process.platform === 'win32') return; // modes mean little there; the profile folder is private
  tighten(dataDir, 0o700);
  for (const name of readdirSync(dataDir)) {
    const path = join(dataDir, name);
    if (statSync(path, { throwIfNoEntry: false })?.isFile()) tighten(path, 0o600);
  }
}

/**
 * Opens one of the data dir's files with `open`, created 0600 first if it is new (SQLite would
 * create it 0644, and gives its -wal and -shm files the mode of the database file), and turns a
 * failure into a DataDirError where it is a known case.
 */
export function openPrivate<T>(dataDir: string, file: string, what: string, open: () => T): T {
  try {
    closeSync(openSync(join(dataDir, file), 'a', 0o600));
    return open();
  } catch (err) {
    throw storeError(err, `${what} ${join(dataDir, file)}`, dataDir) ?? err;
  }
}

function tighten(path: string, mode: number): void {
  try {
    if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
  } catch {
    // Not ours to change (another owner): the data dir still works, as it did before.
  }
}

/**
 * What a failure to open or write a store in the data dir means, in words a user can act on, or
 * undefined when it is none of the known cases (then the original error says more).
 */
export function storeError(err: unknown, what: string, dataDir: string): DataDirError | undefined {
  const code = (err as { code?: string }).code ?? '';
  const detail = (err as Error).message;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new DataDirError(
      `${what} cannot be opened: it is damaged (${detail}). It was left as it is: restore it from a backup, or move it away to start afresh (a new ledger starts with no balance and no history).`,
    );
  }
  if (
    code === 'EROFS' ||
    code.startsWith('SQLITE_READONLY') ||
    ((code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_CANTOPEN') && !writable(dataDir))
  ) {
    return new DataDirError(
      `${what} cannot be written: the data dir ${dataDir} is read-only (${detail}). Tollgate needs to write its ledger there; make it writable, or use another --data-dir.`,
    );
  }
  if (
    code === 'ENOSPC' ||
    code === 'SQLITE_FULL' ||
    ((code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') && diskFull(dataDir))
  ) {
    return new DataDirError(
      `${what} cannot be written: the disk is full (no space left on the device of ${dataDir}). Nothing was changed; free some space and start again.`,
    );
  }
  return undefined;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function diskFull(dir: string): boolean {
  try {
    return statfsSync(dir).bavail === 0;
  } catch {
    return false;
  }
}
