/** A ledger as builds before the money checks wrote it, for the migration and the doctor's tests. */
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The tables as builds before the money checks made them. */
const OLD_SCHEMA = `
CREATE TABLE wallet (id INTEGER PRIMARY KEY CHECK (id = 1), balance_micro INTEGER NOT NULL);
INSERT INTO wallet (id, balance_micro) VALUES (1, 0);
CREATE TABLE wallet_tx (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('topup')), amount_micro INTEGER NOT NULL, note TEXT);
CREATE TABLE key_usage (key_id TEXT PRIMARY KEY, used_micro INTEGER NOT NULL, requests INTEGER NOT NULL);
CREATE TABLE requests (id INTEGER PRIMARY KEY, request_id TEXT NOT NULL, ts INTEGER NOT NULL, key_id TEXT, key_name TEXT, model TEXT,
  upstream_model TEXT, line TEXT, inbound_protocol TEXT NOT NULL, upstream_protocol TEXT, stream INTEGER NOT NULL, status INTEGER NOT NULL,
  error_code TEXT, error_message TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL, audio_input_tokens INTEGER NOT NULL, image_input_tokens INTEGER NOT NULL,
  usage_estimated INTEGER NOT NULL, cost_micro INTEGER NOT NULL, latency_ms INTEGER NOT NULL, ttfb_ms INTEGER, notes TEXT, served_model TEXT,
  attempts INTEGER NOT NULL DEFAULT 0);
CREATE INDEX requests_ts ON requests (ts);
CREATE INDEX requests_status ON requests (status);
`;

/** Writes into `dir` an old ledger: a $0.001 top-up, the given balance, one row of key_a costing `costMicro`. Returns `dir`. */
export function writeOldLedger(dir: string, costMicro: number, balanceMicro: number): string {
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.exec(OLD_SCHEMA);
  db.prepare("INSERT INTO wallet_tx (ts, kind, amount_micro) VALUES (1, 'topup', 1000)").run();
  db.prepare('UPDATE wallet SET balance_micro = ?').run(balanceMicro);
  db.prepare(
    `INSERT INTO requests (request_id, ts, key_id, inbound_protocol, stream, status, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, audio_input_tokens, image_input_tokens, usage_estimated, cost_micro, latency_ms)
    VALUES ('req_old', 1, 'key_a', 'openai-chat', 0, 200, 1, 1, 0, 0, 0, 0, 0, 0, ?, 1)`,
  ).run(costMicro);
  db.prepare('INSERT INTO key_usage VALUES (?, ?, 1)').run('key_a', costMicro);
  db.pragma('user_version = 1');
  db.close();
  return dir;
}
