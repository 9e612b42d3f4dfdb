/**
 * When the ledger's WAL is copied back into the database file (a checkpoint). SQLite's own
 * automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages: that commit
 * pays for copying every page the WAL holds and for two fsyncs (milliseconds, 5 ms at the 99th
 * percentile on the bench machine) while its settlements wait, so their answers do too. Here the
 * commit only counts; the checkpoint runs in a later turn of the event loop, after the answers of
 * that commit have been written. Nothing about durability changes: a committed row is in the WAL
 * either way, and a crash before the checkpoint replays the WAL at the next open.
 */
import type Database from 'better-sqlite3';

/** About as many WAL pages between checkpoints as SQLite's default (about 4 MB). */
const CHECKPOINT_PAGES = 1000;

/**
 * SQLite's own automatic checkpoint stays, at four times that, as the WAL's bound should a write
 * this class does not see (a prune, an admin change) or a checkpoint that could not finish leave
 * it growing.
 */
const BOUND_PAGES = 4 * CHECKPOINT_PAGES;

export class Checkpoints {
  /** Commits since the last checkpoint. */
  private commits = 0;
  /** Commits between checkpoints: CHECKPOINT_PAGES over the pages a commit wrote at the last one. */
  private every = 16;
  private scheduled = false;

  constructor(private readonly db: Database.Database) {
    db.pragma(`wal_autocheckpoint = ${BOUND_PAGES}`);
  }

  /** A commit was made: once enough have been, a checkpoint is run in a later turn. */
  committed(): void {
    if (++this.commits < this.every || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }

  /**
   * A passive checkpoint: it copies what no reader still needs and never waits. It reports the
   * pages the WAL held, which after the last complete checkpoint are what the commits since wrote,
   * and sets how many commits the next one waits for.
   */
  run(): void {
    if (!this.db.open) return;
    const commits = Math.max(1, this.commits);
    this.commits = 0;
    try {
      const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      const perCommit = Math.max(1, (result?.log ?? 0) / commits);
      this.every = Math.min(CHECKPOINT_PAGES, Math.max(1, Math.floor(CHECKPOINT_PAGES / perCommit)));
    } catch {
      // The connection was busy (a statement still reading) or the disk refused: the next commit
      // schedules another, and SQLite's own checkpoint at BOUND_PAGES still bounds the WAL.
      this.every = 1;
    }
  }
}
