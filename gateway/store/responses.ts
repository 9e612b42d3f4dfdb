import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from './sqlite.js';

/** How long a stored response can be chained from, as OpenAI keeps them. */
export const RESPONSE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Responses kept for `previous_response_id`: each stored response holds the whole conversation
 * item list up to and including its output, so a chain continues on any upstream (the upstream
 * itself is always called with `store:false` and the full history). Stored only when the client
 * asks (`store` true, the Responses default); Codex sends `store:false` and is never stored.
 * Kept in its own SQLite file, apart from the money ledger.
 */
/** A row of `responses`: a stored response's conversation items, as JSON. */
interface ResponseRecord {
  id: string;
  key_id: string;
  created: number;
  items: string;
}

export class ResponseStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement<[string], ResponseRecord>;
  private writes = 0;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'responses.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS responses (
      id TEXT PRIMARY KEY,
      key_id TEXT NOT NULL,
      created INTEGER NOT NULL,
      items TEXT NOT NULL
    )`);
    this.insert = this.db.prepare('INSERT OR REPLACE INTO responses (id, key_id, created, items) VALUES (?, ?, ?, ?)');
    this.select = this.db.prepare<[string], ResponseRecord>('SELECT * FROM responses WHERE id = ?');
  }

  put(id: string, keyId: string, items: unknown[]): void {
    this.insert.run(id, keyId, Date.now(), JSON.stringify(items));
    if (++this.writes % 100 === 0)
      this.db.prepare('DELETE FROM responses WHERE created < ?').run(Date.now() - RESPONSE_TTL_MS);
  }

  /** The conversation items of a stored response, if it exists, is not expired and belongs to the key. */
  get(id: string, keyId: string): unknown[] | undefined {
    const row = this.select.get(id);
    if (!row || row.key_id !== keyId || row.created < Date.now() - RESPONSE_TTL_MS) return undefined;
    return JSON.parse(row.items) as unknown[];
  }

  /** Forgets every stored conversation (the storeResponses setting was turned off). */
  clear(): void {
    this.db.prepare('DELETE FROM responses').run();
  }

  close(): void {
    this.db.close();
  }
}
