/**
 * The usage-bucket table is the one list of token kinds: its rows are consistent, the ledger has
 * a checked column for each, every consumer derives its list from it, and a new kind of token is
 * one row plus its ledger migration (shown on a copy of the gateway with a row added).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import {
  BILLED_BUCKETS,
  BUCKET_KEYS,
  LISTED_BUCKETS,
  PRICE_KEYS,
  REQUIRED_PRICES,
  USAGE_BUCKETS,
} from '../../gateway/contract/usage-buckets.js';
import { Ledger } from '../../gateway/store/ledger.js';
import { tempDataDir } from '../helpers/gateway.js';

const rows = BUCKET_KEYS.map((k) => ({ key: k, ...USAGE_BUCKETS[k] }));

describe('the table', () => {
  test('names each bucket, column, price kind, CSV column and CLI header once', () => {
    for (const field of ['column', 'price', 'csv', 'cli', 'term', 'title'] as const) {
      const named = rows.map((r) => r[field]).filter((v) => v !== null);
      assert.equal(new Set(named).size, named.length, `${field} repeats`);
    }
  });

  test('lists every bucket at a place of its own, 0 to n − 1', () => {
    assert.deepEqual(
      rows.map((r) => r.listed).sort((a, b) => a - b),
      rows.map((_, i) => i),
    );
  });

  test('a fallback is a price kind every model has', () => {
    for (const r of rows) if (r.fallback !== null) assert.ok((REQUIRED_PRICES as string[]).includes(r.fallback), r.key);
  });

  test('keeps the orders clients see: the price kinds, the log entry, the bill', () => {
    assert.deepEqual(PRICE_KEYS, [
      'input',
      'output',
      'cacheRead',
      'cacheWrite',
      'cacheWrite1h',
      'audioInput',
      'imageInput',
    ]);
    assert.deepEqual(REQUIRED_PRICES, ['input', 'output', 'cacheRead', 'cacheWrite']);
    assert.deepEqual(LISTED_BUCKETS, [
      'inputTokens',
      'outputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'cacheWrite1hTokens',
      'reasoningTokens',
      'audioInputTokens',
      'imageInputTokens',
    ]);
    assert.deepEqual(BILLED_BUCKETS, [
      'inputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'cacheWrite1hTokens',
      'outputTokens',
      'audioInputTokens',
      'imageInputTokens',
    ]);
  });
});

test('the ledger has a whole-number column for every bucket', () => {
  const dir = tempDataDir();
  try {
    new Ledger(dir).close();
    const db = new Database(join(dir, 'ledger.sqlite'), { readonly: true });
    const { sql } = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'requests'").get() as { sql: string };
    const columns = db.prepare('PRAGMA table_info(requests)').all() as { name: string; notnull: number }[];
    db.close();
    for (const r of rows) {
      assert.equal(columns.find((c) => c.name === r.column)?.notnull, 1, `${r.column} is a NOT NULL column`);
      assert.ok(sql.includes(`typeof(${r.column}) = 'integer'`), `${r.column} is checked to be whole`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Every module that handles the buckets one by one, and the names of the table it may still spell
 * out, with why. Anything else of the table (a bucket key, a ledger column, a CSV or CLI name, a
 * label) written in one of these files is a list kept by hand.
 */
const CONSUMERS: Record<string, { spells?: string[]; why?: string; via?: RegExp }> = {
  'gateway/core/usage.ts': { spells: ['cacheWriteTokens'], why: 'cacheWriteTokens() is the one cache-write figure' },
  'gateway/contract/prices.ts': {},
  'gateway/billing/pricing.ts': {
    spells: ['cacheReadTokens'],
    why: 'what caching saved is, by definition, the cache reads at the input price less their own',
  },
  'gateway/core/cost-breakdown.ts': {},
  'gateway/store/ledger.ts': {},
  'gateway/store/ledger-rows.ts': {
    spells: ['cacheReadTokens'],
    why: 'the cache-hit rate is cache reads over the whole prompt',
  },
  'gateway/store/ledger-checks.ts': {},
  'gateway/store/usage-rollup.ts': {
    spells: [
      'input_tokens',
      'output_tokens',
      'cache_read_tokens',
      'cache_write_tokens',
      'inputTokens',
      'outputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
    ],
    why: 'the hourly stats keep four figures of their own (input, output, cache reads, all cache writes)',
  },
  'gateway/store/ledger-reports.ts': {
    spells: [
      'input_tokens',
      'output_tokens',
      'cache_read_tokens',
      'cache_write_tokens',
      'inputTokens',
      'outputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
    ],
    why: 'the stats rows are those four figures',
    via: /CACHE_WRITES_SQL/,
  },
  'gateway/contract/admin/views.ts': {
    spells: ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'],
    why: "the stats row's four figures",
  },
  'gateway/admin/logs-csv.ts': {},
  'gateway/cli/program.ts': {},
  'renderer/pages/logs/details.tsx': {
    spells: ['inputTokens', 'outputTokens'],
    why: 'a row without a price snapshot always shows its input and output',
  },
};

/** The names a consumer would spell if it kept its own list: keys, columns, CSV names, and CLI headers as strings. */
const NAMES = rows
  .flatMap((r) => [r.key, r.column, r.csv, r.cli === null ? null : `'${r.cli}'`])
  .filter((v): v is string => v !== null);

describe('every consumer derives its list from the table', () => {
  for (const [
    file,
    { spells = [], why, via = /usage-buckets\.js|core\/usage\.js|contract\/prices\.js/ },
  ] of Object.entries(CONSUMERS)) {
    test(file, () => {
      const code = readFileSync(file, 'utf8')
        // Comments may name a bucket to explain it.
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      assert.match(code, via, 'it reads the table');
      const spelled = NAMES.filter((n) => new RegExp(`(?<![\\w-])${n}(?![\\w-])`).test(code));
      assert.deepEqual(
        spelled.filter((n) => !spells.includes(n)),
        [],
        `${file} spells out buckets the table lists${why ? ` (allowed: ${spells.join(', ')}: ${why})` : ''}`,
      );
    });
  }
});

describe('a new kind of token is one row plus its ledger migration', () => {
  const copy = mkdtempSync(join(tmpdir(), 'tollgate-bucket-'));
  after(() => rmSync(copy, { recursive: true, force: true }));

  test('a copy of the gateway with a video-input bucket bills, logs, explains and exports it', () => {
    cpSync('gateway', join(copy, 'gateway'), { recursive: true });
    cpSync('package.json', join(copy, 'package.json'));
    symlinkSync(join(process.cwd(), 'node_modules'), join(copy, 'node_modules'), 'dir');
    edit(join(copy, 'gateway/contract/usage-buckets.ts'), '} as const satisfies Record<string, BucketRow>;', (end) =>
      [
        `  videoInputTokens: {`,
        `    column: 'video_input_tokens',`,
        `    price: 'videoInput',`,
        `    fallback: 'input',`,
        `    family: 'input',`,
        `    term: 'video input',`,
        `    title: 'Video input',`,
        `    listed: 8,`,
        `    csv: 'video_input_tokens',`,
        `    cli: 'VIDEO',`,
        `  },`,
        end,
      ].join('\n'),
    );
    edit(
      join(copy, 'gateway/store/ledger-schema.ts'),
      "  add('multiplier_ppm', 'INTEGER');",
      (line) => `${line}\n  add('video_input_tokens', \`INTEGER NOT NULL DEFAULT 0 \${whole('video_input_tokens')}\`);`,
    );
    writeFileSync(join(copy, 'check.ts'), CHECK);
    const out = JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', 'check.ts'], { cwd: copy, encoding: 'utf8' }),
    ) as Record<string, unknown>;
    // Prices: a kind of its own, optional (it falls back to input), listed last.
    assert.deepEqual(out.priceKeys, [...PRICE_KEYS, 'videoInput']);
    assert.deepEqual(out.requiredPrices, REQUIRED_PRICES);
    // Billing: 1000 input × $1/M + 100 output × $2/M + 500 video × $3/M = $0.0027; without its own price, at input's.
    assert.equal(out.cost, 2700);
    assert.equal(out.costAtInput, 1700);
    // The reservation holds a prompt token at the dearest kind it may be billed as: video, here.
    assert.equal(out.dearest, 3_000_000);
    assert.equal(out.problem, 'videoInputTokens is -1, not a whole number of tokens');
    // The ledger: written, read back, explained.
    assert.deepEqual(out.usage, {
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
      videoInputTokens: 500,
    });
    assert.equal(out.formula, '1000 input × $1/M + 100 output × $2/M + 500 video input × $3/M = $0.0027');
    assert.equal(out.costMicro, 2700);
    // The admin API's schemas know it, the CSV exports it, the doctor checks its column.
    assert.equal(out.entryValid, true);
    assert.equal(out.pricesValid, true);
    assert.match(String(out.csv), /^id,time,.*,reasoning_tokens,video_input_tokens,usage_estimated,/);
    assert.match(String(out.csv), /\n\d+,.*,0,500,false,2700,/);
    assert.equal(out.badRows, 1);
  });
});

function edit(file: string, anchor: string, replace: (anchor: string) => string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(anchor), `${file} has "${anchor}"`);
  writeFileSync(file, text.replace(anchor, replace(anchor)));
}

/** Run in the copy: settles one request with video tokens and reports what each consumer made of it. */
const CHECK = `
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { text } from 'node:stream/consumers';
import { Value } from '@sinclair/typebox/value';
import { PRICE_KEYS, REQUIRED_PRICES } from './gateway/contract/usage-buckets.js';
import { costMicro, dearestInputPrice } from './gateway/billing/pricing.js';
import { emptyUsage, usageProblem } from './gateway/core/usage.js';
import { Ledger } from './gateway/store/ledger.js';
import { logsCsv } from './gateway/admin/logs-csv.js';
import { LogEntry, PricesView } from './gateway/contract/admin/views.js';

const prices = { input: 1_000_000, output: 2_000_000, cacheRead: 500_000, cacheWrite: 1_250_000, videoInput: 3_000_000 };
const usage = { ...emptyUsage(), inputTokens: 1000, outputTokens: 100, videoInputTokens: 500 };
const { videoInput: _, ...textOnly } = prices;
const cost = costMicro(usage, prices, 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'tollgate-bucket-ledger-'));
const ledger = new Ledger(dir);
ledger.topup(1_000_000);
await ledger.settle({
  requestId: 'req_video', ts: Date.now(), keyId: 'key_1', keyName: 'laptop', model: 'm', servedModel: 'm',
  upstreamModel: 'm', line: 'l', attempts: 1, inboundProtocol: 'gemini', upstreamProtocol: 'gemini', stream: false,
  status: 200, errorCode: null, errorMessage: null, usage, usageEstimated: false, costMicro: cost, unchargedMicro: 0,
  latencyMs: 1, ttfbMs: 1, notes: null, billedAt: { prices, multiplierPpm: 1_000_000 }, session: null, agent: null, tool: null, project: null, savedMicro: 0,
});
const [entry] = ledger.logs({});
const csv = await text(logsCsv(ledger.reports, {}));
ledger.close();
const db = new Database(join(dir, 'ledger.sqlite'));
db.pragma('ignore_check_constraints = 1');
db.prepare("UPDATE requests SET video_input_tokens = -5").run();
db.close();
const again = new Ledger(dir);
const badRows = again.problems(new Map()).badRows.count;
again.close();
console.log(JSON.stringify({
  priceKeys: PRICE_KEYS,
  requiredPrices: REQUIRED_PRICES,
  cost,
  costAtInput: costMicro(usage, textOnly, 1_000_000),
  dearest: dearestInputPrice(prices),
  problem: usageProblem({ ...usage, videoInputTokens: -1 }, 1e9),
  usage: entry.usage,
  formula: entry.breakdown?.formula,
  costMicro: entry.breakdown?.costMicro,
  entryValid: Value.Check(LogEntry, entry) && 'videoInputTokens' in LogEntry.properties.usage.properties,
  pricesValid: Value.Check(PricesView, prices) && 'videoInput' in PricesView.properties,
  csv,
  badRows,
}));
`;
