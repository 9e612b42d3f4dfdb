import Database from 'better-sqlite3';

/**
 * Set by the desktop app when it runs from source (`npm start`): the path of better-sqlite3's
 * native binary built for Electron's ABI, kept apart from the one npm built for Node, which the
 * CLI and the tests go on using (.ci/electron-native.ts, docs/desktop.md "Running from source").
 */
export const SQLITE_BINDING_ENV = 'TOLLGATE_SQLITE_BINDING';

/** Opens a SQLite database with better-sqlite3, loading its native binary from SQLITE_BINDING_ENV when set. */
export function openSqlite(path: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = process.env[SQLITE_BINDING_ENV];
  return new Database(path, nativeBinding ? { ...options, nativeBinding } : options);
}
