import type Database from 'better-sqlite3';

/** A money or token column: a whole number, never negative (SQLite would otherwise store 1.5 or 8e300 as a REAL). */
const whole = (column: string): string => `CHECK (typeof(${column}) = 'integer' AND ${column} >= 0)`;

/** A top-up adds money; an adjustment (a correction, with a note) may add or take away, never 0. */
const WALLET_TX_COLUMNS = `kind TEXT NOT NULL CHECK (kind IN ('topup', 'adjustment')),
  amount_micro INTEGER NOT NULL CHECK (typeof(amount_micro) = 'integer' AND amount_micro != 0 AND (kind = 'adjustment' OR amount_micro > 0)),
  note TEXT`;

/**
 * The ledger's tables. Every money column is checked by SQLite itself, so a value that is not a
 * whole number of micro-USD (or a negative cost) is refused at the write, whatever code wrote it.
 * The wallet balance may not go below zero: settlement never charges more than the reservation,
 * which the free balance covered at admission (billing/billing.ts).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS wallet (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  balance_micro INTEGER NOT NULL ${whole('balance_micro')}
);
INSERT OR IGNORE INTO wallet (id, balance_micro) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS wallet_tx (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  ${WALLET_TX_COLUMNS}
);
CREATE TABLE IF NOT EXISTS key_usage (
  key_id TEXT PRIMARY KEY,
  used_micro INTEGER NOT NULL ${whole('used_micro')},
  requests INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  key_id TEXT,
  key_name TEXT,
  model TEXT,
  upstream_model TEXT,
  line TEXT,
  inbound_protocol TEXT NOT NULL,
  upstream_protocol TEXT,
  stream INTEGER NOT NULL,
  status INTEGER NOT NULL,
  error_code TEXT,
  error_message TEXT,
  input_tokens INTEGER NOT NULL ${whole('input_tokens')},
  output_tokens INTEGER NOT NULL ${whole('output_tokens')},
  cache_read_tokens INTEGER NOT NULL ${whole('cache_read_tokens')},
  cache_write_tokens INTEGER NOT NULL ${whole('cache_write_tokens')},
  reasoning_tokens INTEGER NOT NULL ${whole('reasoning_tokens')},
  audio_input_tokens INTEGER NOT NULL ${whole('audio_input_tokens')},
  image_input_tokens INTEGER NOT NULL ${whole('image_input_tokens')},
  usage_estimated INTEGER NOT NULL,
  cost_micro INTEGER NOT NULL ${whole('cost_micro')},
  latency_ms INTEGER NOT NULL,
  ttfb_ms INTEGER,
  notes TEXT,
  served_model TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0 ${whole('cache_write_1h_tokens')},
  uncharged_micro INTEGER NOT NULL DEFAULT 0 ${whole('uncharged_micro')},
  -- What the row was billed at (core/cost-breakdown.ts): unit prices as JSON and the multiplier.
  prices_json TEXT,
  multiplier_ppm INTEGER,
  -- Who sent it (docs/sessions.md): the agent session, the sub-agent, the tool, the project.
  session TEXT,
  agent TEXT,
  tool TEXT,
  project TEXT,
  -- What the cache reads saved: priced at the input price, less what they cost.
  saved_micro INTEGER NOT NULL DEFAULT 0 ${whole('saved_micro')}
);
CREATE INDEX IF NOT EXISTS requests_ts ON requests (ts);
-- One column each, so that SQLite keeps the entries of one value in rowid order: a filtered page
-- of the log (WHERE line = ? ORDER BY id DESC LIMIT n) then reads n index entries, with no sort.
CREATE INDEX IF NOT EXISTS requests_key ON requests (key_name);
CREATE INDEX IF NOT EXISTS requests_model ON requests (model);
CREATE INDEX IF NOT EXISTS requests_line ON requests (line);
CREATE INDEX IF NOT EXISTS requests_protocol ON requests (inbound_protocol);
CREATE INDEX IF NOT EXISTS requests_request_id ON requests (request_id);
CREATE TABLE IF NOT EXISTS pending (
  request_id TEXT PRIMARY KEY,
  ts INTEGER NOT NULL,
  key_id TEXT,
  key_name TEXT,
  model TEXT,
  inbound_protocol TEXT NOT NULL,
  stream INTEGER NOT NULL,
  held_micro INTEGER NOT NULL ${whole('held_micro')}
) WITHOUT ROWID;
`;

/** The status nearly every row has; the status index leaves it out (see migrate). */
export const RARE_STATUS = 'status != 200';
const RARE_STATUS_INDEX = 'requests_status_rare';

/** Money and token columns that existed before the checks did, and the rule each must meet. */
const CHECKED: Record<string, string[]> = {
  wallet: ['balance_micro'],
  wallet_tx: ['amount_micro'],
  key_usage: ['used_micro'],
  requests: [
    'input_tokens',
    'output_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'reasoning_tokens',
    'audio_input_tokens',
    'image_input_tokens',
    'cost_micro',
  ],
};

/** The migration steps done (SQLite's user_version). */
function userVersion(db: Database.Database): number {
  const v: unknown = db.pragma('user_version', { simple: true });
  return typeof v === 'number' ? v : 0;
}

/** Brings a ledger written by an older build up to date (user_version counts the steps done). */
export function migrate(db: Database.Database): void {
  const columns = new Set(
    db
      .prepare<[], { name: string }>('PRAGMA table_info(requests)')
      .all()
      .map((c) => c.name),
  );
  const add = (name: string, def: string): void => {
    if (!columns.has(name)) db.exec(`ALTER TABLE requests ADD COLUMN ${name} ${def}`);
  };
  add('notes', 'TEXT');
  add('served_model', 'TEXT');
  add('attempts', 'INTEGER NOT NULL DEFAULT 0');
  add('cache_write_1h_tokens', `INTEGER NOT NULL DEFAULT 0 ${whole('cache_write_1h_tokens')}`);
  add('uncharged_micro', `INTEGER NOT NULL DEFAULT 0 ${whole('uncharged_micro')}`);
  // Rows written before prices were kept per row have none: they read as having no snapshot.
  add('prices_json', 'TEXT');
  add('multiplier_ppm', 'INTEGER');
  // Rows from before sessions were recognised have no session, agent, tool or project: they read as null.
  add('session', 'TEXT');
  add('agent', 'TEXT');
  add('tool', 'TEXT');
  add('project', 'TEXT');
  add('saved_micro', `INTEGER NOT NULL DEFAULT 0 ${whole('saved_micro')}`);
  const version = userVersion(db);
  if (version < 1) {
    // The Messages interface logged itself as `anthropic-messages` while its upstream side was
    // `anthropic`; one wire format now has one id, so old rows take the one new rows carry.
    db.transaction(() => {
      db.prepare(
        "UPDATE requests SET inbound_protocol = 'anthropic' WHERE inbound_protocol = 'anthropic-messages'",
      ).run();
      db.pragma('user_version = 1');
    })();
  }
  if (version < 2) addChecks(db);
  if (userVersion(db) === 2) allowAdjustments(db);
  // Replaced by the one-column indexes, which serve the log's id-ordered pages without a sort.
  db.exec('DROP INDEX IF EXISTS requests_key_ts; DROP INDEX IF EXISTS requests_model_ts;');
  // The status filter needs an index only for the statuses that are rare: every status but 200
  // (an error, a 302). A 200, nearly every row, is found at once by the log's id order, so the
  // rows that record one (most settlements) no longer write an entry here (docs/performance.md,
  // "The ledger's commit, smaller"). The log adds `status != 200` to its filters to use it
  // (ledger-reports.ts). Replaces the index of every status.
  db.exec(`DROP INDEX IF EXISTS requests_status;
    CREATE INDEX IF NOT EXISTS ${RARE_STATUS_INDEX} ON requests (status) WHERE ${RARE_STATUS};`);
  // Here rather than in SCHEMA: on an old ledger the columns exist only once the steps above ran.
  // The log's session, tool and project filters: without an index, a rare value (a project with
  // a few requests in a million) reads the whole log (docs/performance.md, "The usage log at a
  // million rows"). Values repeat, so each index grows at the end of its value's run, a hot page.
  db.exec(`CREATE INDEX IF NOT EXISTS requests_session ON requests (session);
    CREATE INDEX IF NOT EXISTS requests_tool ON requests (tool);
    CREATE INDEX IF NOT EXISTS requests_project ON requests (project);`);
}

/**
 * Gives the tables of a ledger made before the money checks existed the same checks, by SQLite's
 * own recipe for a schema change: a copy of each table with the checks added, the rows copied
 * over, the old table dropped and the copy renamed. A ledger whose rows already break a check
 * (written by a build that let bad usage figures through) is left as it is: `tollgate doctor`
 * names what is wrong, and the copy is tried again at the next start.
 */
function addChecks(db: Database.Database): void {
  const broken = Object.entries(CHECKED).some(([table, cols]) =>
    db
      .prepare(
        `SELECT 1 FROM ${table} WHERE ${cols.map((c) => `typeof(${c}) != 'integer' OR ${c} < 0`).join(' OR ')} LIMIT 1`,
      )
      .get(),
  );
  if (broken) return;
  db.transaction(() => {
    for (const [table, cols] of Object.entries(CHECKED)) {
      const found = db
        .prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
        .get(table);
      if (!found) continue;
      const { sql } = found;
      const missing = cols.filter((c) => !sql.includes(`typeof(${c})`));
      if (missing.length === 0) continue;
      const copy = `${table}_checked`;
      const created = sql
        .replace(/^CREATE TABLE (IF NOT EXISTS )?"?\w+"?/, `CREATE TABLE ${copy}`)
        .replace(/\)\s*$/, `, ${missing.map(whole).join(', ')})`);
      db.exec(`DROP TABLE IF EXISTS ${copy}`);
      db.exec(created);
      db.exec(`INSERT INTO ${copy} SELECT * FROM ${table}`);
      db.exec(`DROP TABLE ${table}`);
      db.exec(`ALTER TABLE ${copy} RENAME TO ${table}`);
    }
    // Dropping a table drops its indexes: the schema's CREATE INDEX IF NOT EXISTS puts them back.
    db.exec(SCHEMA);
    db.pragma('user_version = 2');
  })();
}

/**
 * Wallet transactions may be adjustments (signed, with a note) since user_version 3. SQLite cannot
 * change a CHECK, so wallet_tx is copied into a table that allows them, ids and rows kept.
 */
function allowAdjustments(db: Database.Database): void {
  db.transaction(() => {
    db.exec(`ALTER TABLE wallet_tx RENAME TO wallet_tx_v2;
      CREATE TABLE wallet_tx (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, ${WALLET_TX_COLUMNS});
      INSERT INTO wallet_tx (id, ts, kind, amount_micro, note) SELECT id, ts, kind, amount_micro, note FROM wallet_tx_v2;
      DROP TABLE wallet_tx_v2;`);
    db.pragma('user_version = 3');
  })();
}
