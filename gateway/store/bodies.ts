import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqlite } from './sqlite.js';

/** Bodies above this are kept cut short (a pasted file can be megabytes; the log needs the start). */
export const MAX_BODY_CHARS = 1_000_000;

/**
 * Model requests' bodies as clients sent them, kept only while the `storeBodies` setting is on
 * (off by default: prompts can hold anything). In their own SQLite file, apart from the money
 * ledger, keyed by the request id the usage log shows; pruned with the log's rows.
 */
/** A row of `bodies`. */
interface BodyRecord {
  request_id: string;
  ts: number;
  body: string;
  /** 1 when the body was cut at MAX_BODY_CHARS. */
  truncated: number;
}

export class BodyStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement<[string], BodyRecord>;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'bodies.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Deleted bodies are overwritten with zeros, not left in free pages for anyone to read back.
    this.db.pragma('secure_delete = ON');
    this.db.exec(`CREATE TABLE IF NOT EXISTS bodies (
      request_id TEXT PRIMARY KEY,
      ts INTEGER NOT NULL,
      body TEXT NOT NULL,
      truncated INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS bodies_ts ON bodies (ts);`);
    this.insert = this.db.prepare(
      'INSERT OR REPLACE INTO bodies (request_id, ts, body, truncated) VALUES (?, ?, ?, ?)',
    );
    this.select = this.db.prepare<[string], BodyRecord>('SELECT * FROM bodies WHERE request_id = ?');
  }

  put(requestId: string, body: string): void {
    const truncated = body.length > MAX_BODY_CHARS;
    this.insert.run(requestId, Date.now(), truncated ? body.slice(0, MAX_BODY_CHARS) : body, truncated ? 1 : 0);
  }

  get(requestId: string): { requestId: string; ts: number; body: string; truncated: boolean } | undefined {
    const row = this.select.get(requestId);
    return row && { requestId: row.request_id, ts: row.ts, body: row.body, truncated: row.truncated === 1 };
  }

  /** Deletes the bodies kept before `before` (epoch ms); all of them when absent. */
  prune(before = Number.MAX_SAFE_INTEGER): number {
    return this.db.prepare('DELETE FROM bodies WHERE ts < ?').run(before).changes;
  }

  /**
   * Deletes every body and leaves none readable on disk: the deleted pages are zeroed
   * (secure_delete), and the write-ahead log, which still holds page images with the prompts, is
   * checkpointed into the database and truncated to nothing. For turning body storage off.
   */
  erase(): number {
    const n = this.prune();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return n;
  }

  close(): void {
    this.db.close();
  }
}
