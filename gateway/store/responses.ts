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
  private readonly prune: Database.Statement<[number]>;
  /** Rows put and not yet written (put): by id, as the table's primary key, a later put of an id replacing it. */
  private readonly pending = new Map<string, ResponseRecord>();
  private flushing: NodeJS.Immediate | undefined;
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
    this.prune = this.db.prepare<[number]>('DELETE FROM responses WHERE created < ?');
  }

  /**
   * Stores a response's conversation. The row is written with the others put in the same turn of the event loop,
   * in one transaction in the check phase after it: a commit of its own per response cost 130–430 µs of the
   * answer's path (SQLite's commit and WAL write), against about 50 µs a row when 16 share one. Until then the row
   * is held here, and get() reads it from here, so a chain that continues at once finds it. The JSON is made now,
   * from the items as they are when the answer is encoded.
   */
  put(id: string, keyId: string, items: unknown[]): void {
    this.pending.set(id, { id, key_id: keyId, created: Date.now(), items: JSON.stringify(items) });
    if (this.flushing === undefined) this.flushing = setImmediate(this.flush);
  }

  /**
   * Writes the rows put since the last flush. A row that cannot be written (a full disk) is dropped with a warning:
   * the answer it belongs to has gone to the client already, and the chain from it answers 404 as for an unknown
   * id; the other rows of the batch are written.
   */
  private readonly flush = (): void => {
    this.flushing = undefined;
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    const failed: unknown[] = [];
    this.writeBatch(rows, failed);
    // Let go only once written (or given up on): until then get() finds them here. Nothing is put meanwhile.
    this.pending.clear();
    if (failed.length > 0)
      process.emitWarning(`${failed.length} stored response(s) could not be written: ${String(failed[0])}`, {
        code: 'TOLLGATE_RESPONSE_STORE',
      });
  };

  private writeBatch(rows: ResponseRecord[], failed: unknown[]): void {
    const write = (r: ResponseRecord): void => {
      try {
        this.insert.run(r.id, r.key_id, r.created, r.items);
      } catch (e) {
        failed.push(e);
      }
    };
    // Every 100 rows or so, the expired ones go, in the same transaction.
    this.writes += rows.length;
    const prune = this.writes >= 100;
    if (prune) this.writes = 0;
    try {
      this.db.transaction(() => {
        rows.forEach(write);
        if (prune) this.prune.run(Date.now() - RESPONSE_TTL_MS);
      })();
    } catch (e) {
      // The transaction itself failed (its BEGIN or COMMIT): nothing of it was kept.
      failed.splice(0, failed.length, ...rows.map(() => e));
    }
  }

  /** The conversation items of a stored response, if it exists, is not expired and belongs to the key. */
  get(id: string, keyId: string): unknown[] | undefined {
    const row = this.pending.get(id) ?? this.select.get(id);
    if (!row || row.key_id !== keyId || row.created < Date.now() - RESPONSE_TTL_MS) return undefined;
    return JSON.parse(row.items) as unknown[];
  }

  /** Forgets every stored conversation (the storeResponses setting was turned off). */
  clear(): void {
    this.pending.clear();
    this.db.prepare('DELETE FROM responses').run();
  }

  /** Writes what is still held, then closes the file. */
  close(): void {
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flush();
    this.db.close();
  }
}
