/** The ledger on its own: group commit, the money invariant, and the migration of old rows. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { emptyUsage } from '../../gateway/core/usage.js';
import { Ledger, type RequestRow } from '../../gateway/store/ledger.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tollgate-ledger-'));
  dirs.push(d);
  return d;
}

function row(over: Partial<RequestRow> = {}): RequestRow {
  return {
    requestId: `req_${Math.random().toString(36).slice(2)}`,
    ts: Date.now(),
    keyId: 'key_a',
    keyName: 'a',
    model: 'gpt-4o-mini',
    servedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    line: 'openai',
    attempts: 1,
    inboundProtocol: 'openai-chat',
    upstreamProtocol: 'openai-chat',
    stream: false,
    status: 200,
    errorCode: null,
    errorMessage: null,
    usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5 },
    usageEstimated: false,
    costMicro: 7,
    latencyMs: 3,
    ttfbMs: 2,
    notes: null,
    billedAt: null,
    ...over,
  };
}

test('rows settled in one turn are committed together, and the wallet and key usage follow them', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(1_000);
  await Promise.all([ledger.settle(row({ costMicro: 100 })), ledger.settle(row({ costMicro: 50, keyId: 'key_b', keyName: 'b' })), ledger.settle(row({ costMicro: 0, keyId: null, keyName: null, status: 401 }))]);
  assert.equal(ledger.balanceMicro(), 850);
  assert.equal(ledger.keyUsageMicro('key_a'), 100);
  assert.equal(ledger.keyUsageMicro('key_b'), 50);
  const inv = ledger.checkInvariant();
  assert.deepEqual([inv.ok, inv.topupsMicro, inv.balanceMicro, inv.loggedCostMicro], [true, 1_000, 850, 150]);
  assert.deepEqual(
    ledger.logs({}).map((e) => [e.costMicro, e.keyName, e.status]),
    [
      [0, null, 401],
      [50, 'b', 200],
      [100, 'a', 200],
    ],
  );
  ledger.close();
});

test('the balance and key usage survive a reopen', async () => {
  const dir = tempDir();
  const first = new Ledger(dir);
  first.topup(500);
  await first.settle(row({ costMicro: 123 }));
  first.close();
  const second = new Ledger(dir);
  assert.equal(second.balanceMicro(), 377);
  assert.equal(second.keyUsageMicro('key_a'), 123);
  assert.equal(second.checkInvariant().ok, true);
  second.close();
});

test('a failed commit gives the money back in memory and rejects the settle', async () => {
  const ledger = new Ledger(tempDir());
  ledger.topup(100);
  // A NOT NULL column left null makes the insert, and so the whole batch, fail.
  const bad = ledger.settle(row({ costMicro: 40, inboundProtocol: null as unknown as string }));
  await assert.rejects(bad);
  assert.equal(ledger.balanceMicro(), 100);
  assert.equal(ledger.keyUsageMicro('key_a'), 0);
  assert.equal(ledger.checkInvariant().ok, true);
  ledger.close();
});

test('rows an older build logged as anthropic-messages read as anthropic after the migration', async () => {
  const dir = tempDir();
  const old = new Ledger(dir);
  await old.settle(row({ inboundProtocol: 'anthropic-messages', upstreamProtocol: 'anthropic', costMicro: 0 }));
  await old.settle(row({ inboundProtocol: 'openai-chat', costMicro: 0 }));
  old.close();
  // What an older build left behind: the old id (written above), and no migration recorded.
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.pragma('user_version = 0');
  db.close();
  const reopened = new Ledger(dir);
  assert.deepEqual(reopened.logs({}).map((e) => e.inboundProtocol).sort(), ['anthropic', 'openai-chat']);
  reopened.close();
  const check = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
  assert.equal(check.pragma('user_version', { simple: true }), 1);
  check.close();
});

test('a row keeps the prices and multiplier it was billed at; a ledger from before the snapshot gains the columns, its rows reading as unexplained', async () => {
  const dir = tempDir();
  // A requests table as builds before the price snapshot made it (no prices_json, no multiplier_ppm).
  const db = new Database(join(dir, 'ledger.sqlite'));
  db.exec(`CREATE TABLE requests (id INTEGER PRIMARY KEY, request_id TEXT NOT NULL, ts INTEGER NOT NULL, key_id TEXT, key_name TEXT,
    model TEXT, upstream_model TEXT, line TEXT, inbound_protocol TEXT NOT NULL, upstream_protocol TEXT, stream INTEGER NOT NULL,
    status INTEGER NOT NULL, error_code TEXT, error_message TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
    audio_input_tokens INTEGER NOT NULL, image_input_tokens INTEGER NOT NULL, usage_estimated INTEGER NOT NULL,
    cost_micro INTEGER NOT NULL, latency_ms INTEGER NOT NULL, ttfb_ms INTEGER, notes TEXT, served_model TEXT, attempts INTEGER NOT NULL DEFAULT 0);
    INSERT INTO requests VALUES (1, 'req_old', 1, 'key_a', 'a', 'gpt-4o', 'gpt-4o', 'openai', 'openai-chat', 'openai-chat', 0, 200, NULL, NULL,
    10, 5, 0, 0, 0, 0, 0, 0, 7, 30, NULL, NULL, 'gpt-4o', 1);`);
  db.pragma('user_version = 1');
  db.close();
  const ledger = new Ledger(dir);
  const billedAt = { prices: { input: 2_500_000, output: 10_000_000, cacheRead: 1_250_000, cacheWrite: 0 }, multiplierPpm: 800_000 };
  await ledger.settle(row({ requestId: 'req_new', usage: { ...emptyUsage(), inputTokens: 1000, outputTokens: 100 }, costMicro: 2_800, billedAt }));
  const [fresh, old] = ledger.logs({});
  assert.deepEqual([old?.requestId, old?.billedAt, old?.breakdown, old?.costMicro], ['req_old', null, null, 7]);
  assert.deepEqual(fresh?.billedAt, billedAt);
  assert.equal(fresh?.breakdown?.formula, '1000 input × $2.5/M + 100 output × $10/M = $0.0035 × 0.8 = $0.0028');
  assert.equal(fresh?.breakdown?.costMicro, fresh?.costMicro);
  ledger.close();
});
