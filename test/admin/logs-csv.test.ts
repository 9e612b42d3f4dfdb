/** CSV export: header, quoting, formula neutralising, filter, and every row across the ledger's pages. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { after, before, test } from 'node:test';
import { logsCsv } from '../../gateway/admin/logs-csv.js';
import { Ledger, type RequestRow } from '../../gateway/store/ledger.js';
import { tempDataDir } from '../helpers/gateway.js';

const dir = tempDataDir();
let ledger: Ledger;

function row(i: number, over: Partial<RequestRow> = {}): RequestRow {
  return {
    requestId: `req_${i}`,
    ts: Date.UTC(2026, 10, 20) + i,
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
    usage: {
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 0,
      imageInputTokens: 0,
    },
    usageEstimated: false,
    costMicro: 12,
    unchargedMicro: 0,
    latencyMs: 30,
    ttfbMs: 9,
    notes: null,
    billedAt: null,
    session: null,
    agent: null,
    tool: null,
    project: null,
    savedMicro: 0,
    ...over,
  };
}

before(async () => {
  ledger = new Ledger(dir);
  ledger.topup(1_000_000);
  const rows = Array.from({ length: 2345 }, (_, i) => row(i, i % 100 === 0 ? { keyName: 'ci' } : {}));
  rows.push(
    row(9000, {
      model: '=HYPERLINK("http://evil.example","x")',
      notes: 'dropped a, "quoted" tool\nsecond line',
      keyName: 'ci',
    }),
  );
  await Promise.all(rows.map((r) => ledger.settle(r)));
});

after(() => {
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the CSV has a header and one line per entry, across the ledger pages', async () => {
  const csv = await text(logsCsv(ledger.reports, {}));
  const lines = csv.trimEnd().split('\n');
  assert.equal(
    lines[0],
    'id,time,request_id,key,model,served_model,upstream_model,line,attempts,inbound_protocol,upstream_protocol,stream,status,error_code,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,cache_write_1h_tokens,reasoning_tokens,usage_estimated,cost_micro_usd,uncharged_micro_usd,latency_ms,ttfb_ms,notes,session,agent,tool,project,cache_hit_rate,saved_micro_usd',
  );
  // 2346 entries, one of which spans two lines inside its quoted notes.
  assert.equal(lines.length, 1 + 2346 + 1);
  assert.match(lines[lines.length - 1]!, /^1,2026-11-20T00:00:00\.000Z,req_0,ci,gpt-4o,/);
});

test('quotes what needs quoting and neutralises spreadsheet formulas', async () => {
  const csv = await text(logsCsv(ledger.reports, { key: 'ci' }));
  const first = csv.split('\n').slice(1, 3).join('\n');
  assert.ok(first.includes(`"'=HYPERLINK(""http://evil.example"",""x"")"`), first);
  assert.ok(first.includes('"dropped a, ""quoted"" tool\nsecond line"'), first);
  assert.equal(
    csv.trimEnd().split('\n').length,
    1 + 25 + 1,
    'only the filtered key: 24 rows + the crafted one, which spans two lines',
  );
});
