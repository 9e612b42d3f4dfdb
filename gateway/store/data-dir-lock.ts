import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from './sqlite.js';

/** The lock file in every data dir; its content does not matter, only who holds its lock. */
export const LOCK_FILE = 'gateway.lock';

/** The data dir is held by another process (or by another gateway in this one). */
export class DataDirBusyError extends Error {
  override readonly name = 'DataDirBusyError';
  constructor(
    readonly dataDir: string,
    message = `Another process holds the data dir ${dataDir} (its lock file ${join(dataDir, LOCK_FILE)}): a Tollgate gateway or the Tollgate app uses it. Stop that one first, or use another --data-dir.`,
  ) {
    super(message);
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Gives the lock back; later calls do nothing. */
  release(): void;
}

/**
 * One writer per data dir, enforced by the operating system rather than by a pid file: an
 * exclusive SQLite lock on `gateway.lock` (`locking_mode=EXCLUSIVE` keeps the lock of the first
 * write transaction until the connection closes). SQLite takes it with fcntl() on POSIX and
 * LockFileEx() on Windows, and the kernel drops both when the process dies, however it dies, so a
 * crashed gateway never blocks the next start. Two connections in one process exclude each other
 * too (SQLite tracks its own locks per file). No new native module: better-sqlite3 is the ledger's.
 * Not for network file systems, whose locks SQLite itself does not trust.
 *
 * `waitMs` rides out a short overlap: a CLI probe (dataDirInUse) or a gateway that is stopping.
 * Throws DataDirBusyError when the lock stays taken.
 */
export function lockDataDir(dataDir: string, waitMs = 2000): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  const db = openSqlite(path, { timeout: waitMs });
  try {
    // No rollback journal file beside the lock: nothing is ever written to it.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirBusyError(dataDir);
    throw err;
  }
  held.add(db);
  return {
    path,
    release() {
      if (!db.open) return;
      db.close();
      held.delete(db);
    },
  };
}

/**
 * Whether a process holds the data dir now. Takes only a shared lock, for a moment, and never
 * creates the lock file, so it cannot disturb a gateway that is starting (which waits it out).
 */
export function dataDirInUse(dataDir: string): boolean {
  let db: Database.Database;
  try {
    db = openSqlite(join(dataDir, LOCK_FILE), { readonly: true, fileMustExist: true, timeout: 0 });
  } catch {
    return false; // no lock file: no gateway ever ran here with this build
  }
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    db.close();
  }
}

// The connections holding locks are referenced here for as long as they are held: a connection
// the garbage collector finalised would close and drop its lock while the gateway still runs.
const held = new Set<Database.Database>();
