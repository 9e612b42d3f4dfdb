/**
 * The sessions table: kept by each settled request in its transaction, and listed by the last_ts
 * index fast enough at a million sessions (the list must stay under 50 ms).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { Ledger } from '../../gateway/store/ledger.js';
import { emptyUsage } from '../../gateway/core/usage.js';
import type { RequestRow } from '../../gateway/store/ledger.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-sessions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const row = (over: Partial<RequestRow>): RequestRow => ({
  requestId: `req_${Math.random()}`,
  ts: 1_000,
  keyId: 'k1',
  keyName: 'laptop',
  model: 'm',
  servedModel: 'm',
  upstreamModel: 'm',
  line: 'l',
  attempts: 1,
  inboundProtocol: 'anthropic',
  upstreamProtocol: 'anthropic',
  stream: false,
  status: 200,
  errorCode: null,
  errorMessage: null,
  usage: { ...emptyUsage(), inputTokens: 100, cacheReadTokens: 300, outputTokens: 10 },
  usageEstimated: false,
  costMicro: 50,
  unchargedMicro: 0,
  latencyMs: 1,
  ttfbMs: 1,
  notes: null,
  billedAt: null,
  session: 's1',
  agent: null,
  tool: 'claude-code',
  project: 'p',
  savedMicro: 7,
  ...over,
});

test('each settled request adds to its session, in the same transaction', async () => {
  const ledger = new Ledger(dir);
  ledger.topup(1_000_000);
  await ledger.settle(row({ ts: 1_000 }));
  await ledger.settle(row({ ts: 2_000, agent: 'sub-1', status: 500 }));
  await ledger.settle(row({ session: null }));
  const s = ledger.sessions.get('s1')!;
  assert.deepEqual(
    [s.first_ts, s.last_ts, s.requests, s.errors, s.prompt_tokens, s.cache_read_tokens, s.cost_micro, s.saved_micro],
    [1_000, 2_000, 2, 1, 800, 600, 100, 14],
  );
  assert.deepEqual(
    ledger.sessions.agents('s1').map((a) => [a.agent, a.requests]),
    [['sub-1', 1]],
  );
  assert.equal(ledger.logs({ session: 's1' }).length, 2);
  ledger.close();
});

test('the requests of one group commit add to their sessions as one by one would', async () => {
  const ledger = new Ledger(dir);
  ledger.topup(1_000_000);
  // Settled in one event-loop turn: one transaction, one upsert per session.
  await Promise.all([
    ledger.settle(row({ session: 'b1', ts: 5_000 })),
    ledger.settle(row({ session: 'b2', ts: 4_000, tool: 'codex', project: 'q' })),
    ledger.settle(row({ session: 'b1', ts: 3_000, status: 429, costMicro: 0, savedMicro: 0, tool: 'curl' })),
    ledger.settle(row({ session: 'b1', ts: 6_000, agent: 'sub-2' })),
  ]);
  const b1 = ledger.sessions.get('b1')!;
  assert.deepEqual(
    [b1.tool, b1.first_ts, b1.last_ts, b1.requests, b1.errors, b1.prompt_tokens, b1.cost_micro, b1.saved_micro],
    ['claude-code', 3_000, 6_000, 3, 1, 1_200, 100, 14],
  );
  const b2 = ledger.sessions.get('b2')!;
  assert.deepEqual([b2.tool, b2.project, b2.requests, b2.cost_micro], ['codex', 'q', 1, 50]);
  // A later commit adds to the totals the first one made.
  await ledger.settle(row({ session: 'b1', ts: 2_000 }));
  const again = ledger.sessions.get('b1')!;
  assert.deepEqual([again.first_ts, again.last_ts, again.requests, again.cost_micro], [2_000, 6_000, 4, 150]);
  ledger.close();
});

test('the sessions list reads a page of an index: under 50 ms at a million sessions', () => {
  const db = new Database(join(dir, 'ledger.sqlite'));
  const insert = db.prepare(`INSERT INTO sessions VALUES (?, 'k1', ?, ?, 'p', ?, ?, 10, 0, 1000, 500, 100, 2000, 300)`);
  db.transaction(() => {
    for (let i = 0; i < 1_000_000; i++)
      insert.run(
        `s-${i}`,
        i % 7 === 0 ? 'ci' : 'laptop',
        i % 100_000 === 7 ? 'gemini-cli' : i % 3 === 0 ? 'codex' : 'claude-code',
        i * 1000,
        i * 1000 + 500,
      );
  })();
  db.close();
  const ledger = new Ledger(dir);
  const started = performance.now();
  const page = ledger.sessions.list({ limit: 100 });
  const byKey = ledger.sessions.list({ key: 'ci', tool: 'codex', limit: 100 });
  const active = ledger.sessions.list({ since: 999_000_000 - 300_000, limit: 100 });
  // Filters that match ten sessions of a million: a page of the filter's own index, not a scan.
  const rareTool = ledger.sessions.list({ tool: 'gemini-cli', limit: 100 });
  const rareBoth = ledger.sessions.list({ key: 'laptop', tool: 'gemini-cli', limit: 100 });
  const ms = performance.now() - started;
  ledger.close();
  assert.equal(rareTool.length, 10);
  assert.equal(rareTool[0]!.id, 's-900007');
  assert.equal(
    rareBoth.length,
    Array.from({ length: 10 }, (_, k) => k * 100_000 + 7).filter((i) => i % 7 !== 0).length,
  );
  assert.equal(page[0]!.id, 's-999999');
  assert.equal(byKey.length, 100);
  assert.ok(active.length > 0);
  assert.ok(ms < 50 * 5, `five lists took ${ms.toFixed(1)} ms`);
  process.stdout.write(`# sessions list over 1,000,000 sessions: ${(ms / 5).toFixed(2)} ms a page\n`);
});
