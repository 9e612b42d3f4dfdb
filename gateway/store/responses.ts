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
/** How long a stored response is held before it is written, with the others put meanwhile (put). */
const HOLD_MS = 20;
/** How many are held at most: at this many they are written in the next check phase. */
const MAX_HELD = 64;

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
  private flushing: NodeJS.Timeout | undefined;
  private flushSoon = false;
  private writes = 0;

  constructor(dataDir: string) {
    this.db = openSqlite(join(dataDir, 'responses.sqlite'));
    // A stored conversation is a row of a few KB: on 4 KB pages one row filled a page and the rest of it went unused,
    // a whole page written to the WAL (and again at its checkpoint) per row; on 8 KB pages three such rows share two.
    // Taken by a new file only (an existing one keeps its pages; it works the same).
    this.db.pragma('page_size = 8192');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS responses (
      id TEXT PRIMARY KEY,
      key_id TEXT NOT NULL,
      created INTEGER NOT NULL,
      items TEXT NOT NULL
    )`);
    // The prune below finds the expired rows by this index; without it, each prune read the whole table (at 36,000
    // rows of 2.5 KB, 250-375 µs of CPU per row stored, against 35-45 with it).
    this.db.exec('CREATE INDEX IF NOT EXISTS responses_created ON responses (created)');
    this.insert = this.db.prepare('INSERT OR REPLACE INTO responses (id, key_id, created, items) VALUES (?, ?, ?, ?)');
    this.select = this.db.prepare<[string], ResponseRecord>('SELECT * FROM responses WHERE id = ?');
    this.prune = this.db.prepare<[number]>('DELETE FROM responses WHERE created < ?');
  }

  /**
   * Stores a response's conversation. The row is written with the others put within the next 20 ms, in one
   * transaction: a commit of its own per response cost 130–430 µs of the answer's path (SQLite's commit and WAL
   * write), and the rows put in one turn of the event loop are too few to share one (about one at 16 requests in
   * flight); 16 rows to a commit cost about 50 µs each. Until then the row is held here (64 at most: then they are
   * written in the next check phase) and get() reads it from here, so a chain that continues at once finds it;
   * close() writes what is held. A crash loses at most those 20 ms of stored conversations, never money (the
   * ledger is apart). The JSON is made now, from the items as they are when the answer is encoded.
   */
  put(id: string, keyId: string, items: unknown[]): void {
    this.pending.set(id, { id, key_id: keyId, created: Date.now(), items: JSON.stringify(items) });
    if (this.pending.size < MAX_HELD) this.flushing ??= setTimeout(this.flush, HOLD_MS).unref();
    else if (!this.flushSoon) {
      // Written in the next check phase, off this answer's path.
      this.flushSoon = true;
      setImmediate(this.flush);
    }
  }

  /**
   * Writes the rows put since the last flush. A row that cannot be written (a full disk) is dropped with a warning:
   * the answer it belongs to has gone to the client already, and the chain from it answers 404 as for an unknown
   * id; the other rows of the batch are written.
   */
  private readonly flush = (): void => {
    if (this.flushing !== undefined) clearTimeout(this.flushing);
    this.flushing = undefined;
    this.flushSoon = false;
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
    this.flush();
    this.db.close();
  }
}
