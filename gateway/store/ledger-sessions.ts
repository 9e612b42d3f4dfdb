/**
 * Agent sessions in the ledger (docs/sessions.md): one `sessions` row per session, its totals written
 * with the hourly rollup's (usage-rollup.ts: within a second of its requests' commit, and at once
 * before anything here reads them), so that the sessions list reads a page of an index instead of
 * grouping the whole log; and `session_state`,
 * what the guards decided (a pause, and what a resume added to the cap), which must outlive a
 * restart. The request rows stay the truth: a session's requests are read by the `session` index.
 */
import type Database from 'better-sqlite3';
import { promptTokens } from '../core/usage.js';
import type { RequestRow } from './ledger.js';

/** Session ids Tollgate makes itself (key + tool + idle gap) start with this. */
export const ASSIGNED_PREFIX = 'tg-';

export const SESSIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  key_id TEXT,
  key_name TEXT,
  tool TEXT NOT NULL,
  project TEXT,
  first_ts INTEGER NOT NULL,
  last_ts INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL,
  saved_micro INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_last ON sessions (last_ts);
CREATE INDEX IF NOT EXISTS sessions_key_tool ON sessions (key_id, tool, last_ts);
-- The list's key and tool filters, newest first: a page of one index whatever the filter matches.
CREATE INDEX IF NOT EXISTS sessions_key_name ON sessions (key_name, tool, last_ts);
CREATE INDEX IF NOT EXISTS sessions_tool ON sessions (tool, last_ts);
CREATE TABLE IF NOT EXISTS session_state (
  id TEXT PRIMARY KEY,
  added_micro INTEGER NOT NULL DEFAULT 0,
  paused_guard TEXT,
  paused_reason TEXT,
  paused_call TEXT,
  paused_at INTEGER
) WITHOUT ROWID;
`;

/** A `sessions` row. */
export interface SessionRecord {
  id: string;
  key_id: string | null;
  key_name: string | null;
  tool: string;
  project: string | null;
  first_ts: number;
  last_ts: number;
  requests: number;
  errors: number;
  prompt_tokens: number;
  cache_read_tokens: number;
  output_tokens: number;
  cost_micro: number;
  saved_micro: number;
}

/** A `session_state` row. */
export interface SessionStateRecord {
  id: string;
  added_micro: number;
  paused_guard: string | null;
  paused_reason: string | null;
  paused_call: string | null;
  paused_at: number | null;
}

export interface SessionListQuery {
  key?: string | undefined;
  tool?: string | undefined;
  /** Only sessions with a request at or after this time (epoch ms). */
  since?: number | undefined;
  limit: number;
}

/** One session's totals over the rows of a batch. */
interface SessionTotal {
  row: RequestRow;
  firstTs: number;
  lastTs: number;
  requests: number;
  errors: number;
  prompt: number;
  cacheRead: number;
  output: number;
  cost: number;
  saved: number;
}

/**
 * Settled requests' sums per session, held until they are written (`sessionWriter`): a session is one
 * upsert however many of its requests are held (sub-agents in parallel settle together). A new
 * session takes its key, tool and project from its first row, as row-by-row upserts did.
 */
export class SessionTotals {
  private readonly totals = new Map<string, SessionTotal>();

  get size(): number {
    return this.totals.size;
  }

  add(row: RequestRow): void {
    if (row.session === null) return;
    const error = row.status >= 400 ? 1 : 0;
    const prompt = promptTokens(row.usage);
    const t = this.totals.get(row.session);
    if (!t) {
      this.totals.set(row.session, {
        row,
        firstTs: row.ts,
        lastTs: row.ts,
        requests: 1,
        errors: error,
        prompt,
        cacheRead: row.usage.cacheReadTokens,
        output: row.usage.outputTokens,
        cost: row.costMicro,
        saved: row.savedMicro,
      });
      return;
    }
    t.firstTs = Math.min(t.firstTs, row.ts);
    t.lastTs = Math.max(t.lastTs, row.ts);
    t.requests++;
    t.errors += error;
    t.prompt += prompt;
    t.cacheRead += row.usage.cacheReadTokens;
    t.output += row.usage.outputTokens;
    t.cost += row.costMicro;
    t.saved += row.savedMicro;
  }

  entries(): IterableIterator<[string, SessionTotal]> {
    return this.totals.entries();
  }
}

/**
 * Adds held session totals to the `sessions` rows; call inside a transaction (usage-rollup.ts writes
 * them with the hourly totals and their mark).
 */
export function sessionWriter(db: Database.Database): (totals: SessionTotals) => void {
  const upsert = db.prepare<
    [string, string | null, string | null, string, string | null, ...number[]]
  >(`INSERT INTO sessions (id, key_id, key_name, tool, project, first_ts, last_ts, requests, errors,
      prompt_tokens, cache_read_tokens, output_tokens, cost_micro, saved_micro)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET last_ts = MAX(last_ts, excluded.last_ts), first_ts = MIN(first_ts, excluded.first_ts),
      requests = requests + excluded.requests, errors = errors + excluded.errors, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
      cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, output_tokens = output_tokens + excluded.output_tokens,
      cost_micro = cost_micro + excluded.cost_micro, saved_micro = saved_micro + excluded.saved_micro`);
  return (totals) => {
    for (const [id, t] of totals.entries()) {
      const r = t.row;
      upsert.run(
        id,
        r.keyId,
        r.keyName,
        r.tool ?? 'unknown',
        r.project,
        t.firstTs,
        t.lastTs,
        t.requests,
        t.errors,
        t.prompt,
        t.cacheRead,
        t.output,
        t.cost,
        t.saved,
      );
    }
  };
}

/** Reading sessions and their state; the guards' writes. */
export class LedgerSessions {
  private readonly byId: Database.Statement<[string], SessionRecord>;
  private readonly stateOf: Database.Statement<[string], SessionStateRecord>;
  private readonly latestAssigned: Database.Statement<[string, string], SessionRecord>;
  private readonly saveState: Database.Statement;

  /** `beforeRead` writes the session totals still held in memory (usage-rollup.ts UsageRollup). */
  constructor(
    private readonly db: Database.Database,
    private readonly beforeRead: () => void = () => undefined,
  ) {
    this.byId = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.stateOf = db.prepare('SELECT * FROM session_state WHERE id = ?');
    this.latestAssigned = db.prepare(
      `SELECT * FROM sessions WHERE key_id = ? AND tool = ? AND id LIKE '${ASSIGNED_PREFIX}%' ORDER BY last_ts DESC LIMIT 1`,
    );
    this.saveState =
      db.prepare(`INSERT INTO session_state (id, added_micro, paused_guard, paused_reason, paused_call, paused_at)
      VALUES (@id, @added_micro, @paused_guard, @paused_reason, @paused_call, @paused_at)
      ON CONFLICT (id) DO UPDATE SET added_micro = excluded.added_micro, paused_guard = excluded.paused_guard,
        paused_reason = excluded.paused_reason, paused_call = excluded.paused_call, paused_at = excluded.paused_at`);
  }

  get(id: string): SessionRecord | undefined {
    this.beforeRead();
    return this.byId.get(id);
  }

  state(id: string): SessionStateRecord | undefined {
    return this.stateOf.get(id);
  }

  /** Every paused session's state (few: a pause lasts until someone resumes it). */
  paused(): SessionStateRecord[] {
    return this.db.prepare<[], SessionStateRecord>('SELECT * FROM session_state WHERE paused_guard IS NOT NULL').all();
  }

  setState(s: SessionStateRecord): void {
    this.saveState.run(s);
  }

  /** The key's latest session of this tool whose id Tollgate made (to carry on after a restart). */
  latestAssignedOf(keyId: string, tool: string): SessionRecord | undefined {
    this.beforeRead();
    return this.latestAssigned.get(keyId, tool);
  }

  /** Newest activity first, by the last_ts index: a page costs its length, whatever the log's size. */
  list(q: SessionListQuery): SessionRecord[] {
    this.beforeRead();
    const parts: string[] = [];
    const args: (string | number)[] = [];
    if (q.key !== undefined) {
      parts.push('key_name = ?');
      args.push(q.key);
    }
    if (q.tool !== undefined) {
      parts.push('tool = ?');
      args.push(q.tool);
    }
    if (q.since !== undefined) {
      parts.push('last_ts >= ?');
      args.push(q.since);
    }
    const where = parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '';
    // The index that gives the filter's sessions in last_ts order, so a page reads `limit` entries
    // even when the filter matches few sessions of many: key (and tool), tool, or none.
    const index =
      q.key !== undefined && q.tool !== undefined
        ? 'sessions_key_name'
        : q.tool !== undefined && q.key === undefined
          ? 'sessions_tool'
          : q.key === undefined
            ? 'sessions_last'
            : undefined;
    return this.db
      .prepare<(string | number)[], SessionRecord>(
        `SELECT * FROM sessions ${index ? `INDEXED BY ${index}` : ''} ${where} ORDER BY last_ts DESC LIMIT ?`,
      )
      .all(...args, q.limit);
  }

  /** A session's sub-agents: requests and cost of each agent id, by the session index. */
  agents(id: string): { agent: string; requests: number; costMicro: number; firstTs: number; lastTs: number }[] {
    return this.db
      .prepare<[string], { agent: string; requests: number; costMicro: number; firstTs: number; lastTs: number }>(
        `SELECT agent, COUNT(*) AS requests, SUM(cost_micro) AS costMicro, MIN(ts) AS firstTs, MAX(ts) AS lastTs
         FROM requests WHERE session = ? AND agent IS NOT NULL GROUP BY agent ORDER BY MIN(ts)`,
      )
      .all(id);
  }

  /** Each key's charges per minute since `since`, for the budget windows (sessions/windows.ts). */
  keyMinutes(keyId: string, since: number): { at: number; micro: number }[] {
    return this.db
      .prepare<[string, number], { at: number; micro: number }>(
        `SELECT (ts / 60000) * 60000 AS at, SUM(cost_micro) AS micro FROM requests
         WHERE key_id = ? AND ts >= ? AND cost_micro > 0 GROUP BY at ORDER BY at`,
      )
      .all(keyId, since);
  }
}
