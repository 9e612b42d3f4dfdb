/** The row schemas the ledger's statements are typed by are its tables, new or migrated, and the rows it writes fit them. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KindGuard, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import Database from 'better-sqlite3';
import { emptyUsage } from '../../gateway/core/usage.js';
import { Ledger, type RequestRow } from '../../gateway/store/ledger.js';
import { LEDGER_RECORDS } from '../../gateway/store/ledger-records.js';
import { tempDataDir } from '../helpers/gateway.js';
import { writeOldLedger } from '../helpers/old-ledger.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDataDir();
  dirs.push(d);
  return d;
}

/** What SQLite says of a column: its declared type and whether it may be NULL. */
function columns(db: Database.Database, table: string): Map<string, string> {
  const info = db.prepare<[], { name: string; type: string; notnull: number; pk: number }>(
    `PRAGMA table_info(${table})`,
  );
  return new Map(info.all().map((c) => [c.name, `${c.type}${c.notnull || c.pk ? '' : ' NULL'}`]));
}

/** The same, as a row schema says it. */
function declared(schema: TSchema): string {
  const nullable = KindGuard.IsUnion(schema) && schema.anyOf.some((s) => KindGuard.IsNull(s));
  const base = KindGuard.IsUnion(schema) ? schema.anyOf.find((s) => !KindGuard.IsNull(s))! : schema;
  const literal = KindGuard.IsUnion(base) ? base.anyOf[0]! : base;
  const value: unknown = KindGuard.IsLiteral(literal) ? literal.const : undefined;
  const type =
    KindGuard.IsInteger(literal) || typeof value === 'number'
      ? 'INTEGER'
      : KindGuard.IsString(literal) || typeof value === 'string'
        ? 'TEXT'
        : '?';
  return `${type}${nullable ? ' NULL' : ''}`;
}

function assertSchemasMatch(file: string): void {
  const db = new Database(file, { readonly: true });
  try {
    for (const [table, schema] of Object.entries(LEDGER_RECORDS)) {
      const expected = new Map(Object.entries(schema.properties).map(([k, s]) => [k, declared(s)]));
      assert.deepEqual(
        Object.fromEntries([...columns(db, table)].sort()),
        Object.fromEntries([...expected].sort()),
        table,
      );
    }
  } finally {
    db.close();
  }
}

function row(requestId: string): RequestRow {
  return {
    requestId,
    ts: Date.now(),
    keyId: 'key_1',
    keyName: 'laptop',
    model: 'gpt-4o',
    servedModel: 'gpt-4o',
    upstreamModel: 'gpt-4o',
    line: 'openai',
    attempts: 1,
    inboundProtocol: 'openai-chat',
    upstreamProtocol: 'openai-chat',
    stream: true,
    status: 200,
    errorCode: null,
    errorMessage: null,
    usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5, cacheWrite1hTokens: 3 },
    usageEstimated: false,
    costMicro: 7,
    unchargedMicro: 0,
    latencyMs: 12,
    ttfbMs: 3,
    notes: null,
    billedAt: { prices: { input: 1, output: 2, cacheRead: 0, cacheWrite: 1 }, multiplierPpm: 1_000_000 },
    session: 's-1',
    agent: null,
    tool: 'curl',
    project: 'p',
    savedMicro: 0,
  };
}

test('a new ledger has the tables the row schemas declare', () => {
  const d = dir();
  new Ledger(d).close();
  assertSchemasMatch(join(d, 'ledger.sqlite'));
});

test('a ledger migrated from an old build has them too', () => {
  const d = writeOldLedger(dir(), 5, 995);
  new Ledger(d).close();
  assertSchemasMatch(join(d, 'ledger.sqlite'));
});

test('the rows the ledger writes fit their schemas', async () => {
  const d = dir();
  const ledger = new Ledger(d);
  ledger.topup(1_000);
  ledger.adjust(-10, 'a correction');
  await ledger.settle(row('req_settled'));
  ledger.open({
    requestId: 'req_open',
    ts: Date.now(),
    keyId: null,
    keyName: null,
    model: 'gpt-4o',
    inboundProtocol: 'anthropic',
    stream: false,
    heldMicro: 20,
  });
  ledger.close();
  const db = new Database(join(d, 'ledger.sqlite'), { readonly: true });
  try {
    for (const [table, schema] of Object.entries(LEDGER_RECORDS)) {
      const rows = db.prepare<[], unknown>(`SELECT * FROM ${table}`).all();
      assert.ok(rows.length > 0, `${table} has rows`);
      for (const r of rows) assert.ok(Value.Check(schema, r), `${table}: ${JSON.stringify(r)}`);
    }
  } finally {
    db.close();
  }
});
