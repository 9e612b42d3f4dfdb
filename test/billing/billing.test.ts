/** Admission and settlement (billing/billing.ts) over a real ledger, with the model and line lookups faked. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Billing, DEFAULT_RESERVED_OUTPUT_TOKENS, type Charge } from '../../gateway/billing/billing.js';
import { reservationMicro } from '../../gateway/billing/pricing.js';
import { GatewayError } from '../../gateway/core/errors.js';
import { emptyUsage } from '../../gateway/core/usage.js';
import { Ledger } from '../../gateway/store/ledger.js';
import type { KeyRecord } from '../../gateway/store/types.js';
import { line, MODEL } from '../helpers/relay-fakes.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const key = (over: Partial<KeyRecord> = {}): KeyRecord => ({ id: 'key_a', name: 'a', hash: 'h', last4: 'x', group: 'default', quotaMicro: null, expiresAt: null, state: 'enabled', createdAt: '', ...over });

function billing(balanceMicro: number, lines = [line('l1', { modelMap: { 'gpt-4o': 'vendor-4o' } }), line('l2')]) {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-billing-'));
  dirs.push(dir);
  const ledger = new Ledger(dir);
  if (balanceMicro > 0) ledger.topup(balanceMicro);
  const b = new Billing(
    ledger,
    {
      resolve: (id) => {
        if (id !== MODEL.id) throw new GatewayError('model_not_found', 'no', { code: 'model_not_found' });
        return { model: MODEL, multiplierPpm: 2_000_000 };
      },
    },
    {
      order: () => {
        if (lines.length === 0) throw new GatewayError('upstream_unavailable', 'no line', { code: 'no_line_for_model' });
        return lines;
      },
    },
  );
  return { b, ledger };
}

const charge = (over: Partial<Charge>): Charge => ({
  admission: null,
  usage: null,
  requestId: 'req_1',
  ts: Date.now(),
  keyId: 'key_a',
  keyName: 'a',
  model: 'gpt-4o',
  attempts: 1,
  inboundProtocol: 'openai-chat',
  stream: false,
  status: 200,
  errorCode: null,
  errorMessage: null,
  usageEstimated: false,
  latencyMs: 5,
  ttfbMs: 4,
  notes: null,
  ...over,
});

test('admission reserves the worst case at the group multiplier and hands over the lines to try', () => {
  const { b } = billing(10_000_000);
  const a = b.admit(key(), 'gpt-4o', { maxOutputTokens: 100, estimatedInputTokens: 1_000 });
  assert.equal(a.reservation.amountMicro, reservationMicro(1_000, 100, MODEL.prices, 2_000_000));
  assert.deepEqual([a.line.id, a.upstreamModel, a.candidates.map((l) => l.id)], ['l1', 'vendor-4o', ['l1', 'l2']]);
  assert.equal(b.reservations.heldMicro(), a.reservation.amountMicro);
});

test("without a limit from the client, the model's own output cap (at most the default) is reserved", () => {
  const { b } = billing(10_000_000);
  const a = b.admit(key(), 'gpt-4o', { maxOutputTokens: undefined, estimatedInputTokens: 0 });
  assert.equal(a.reservation.amountMicro, reservationMicro(0, Math.min(DEFAULT_RESERVED_OUTPUT_TOKENS, MODEL.maxOutputTokens), MODEL.prices, 2_000_000));
});

test('the order of refusals: model (404), line (503), key limits (429), money (402)', () => {
  assert.throws(() => billing(0).b.admit(key(), 'nope', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { status: 404 });
  assert.throws(() => billing(0, []).b.admit(key(), 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { code: 'no_line_for_model' });
  const { b } = billing(0);
  const limited = key({ maxConcurrent: 1 });
  assert.throws(() => b.admit(limited, 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { status: 402, code: 'insufficient_balance' });
  // The refused request gave its concurrency slot back: the next one is refused for money again, not for concurrency.
  assert.throws(() => b.admit(limited, 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { status: 402 });
  // The key's rate is checked before the money: the refused request used the minute's one slot.
  const once = key({ id: 'key_b', rpm: 1 });
  assert.throws(() => b.admit(once, 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { status: 402 });
  assert.throws(() => b.admit(once, 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { status: 429, code: 'key_rate_limited' });
});

test("settlement writes the row at the admission's prices and gives back the reservation and the key's slot", async () => {
  const { b, ledger } = billing(10_000_000);
  const limited = key({ maxConcurrent: 1 });
  const a = b.admit(limited, 'gpt-4o', { maxOutputTokens: 100, estimatedInputTokens: 10 });
  assert.throws(() => b.admit(limited, 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 }), { code: 'key_concurrency_limited' });
  const usage = { ...emptyUsage(), inputTokens: 1_000, outputTokens: 100 };
  await b.settle(charge({ admission: a, usage }));
  const [row] = ledger.logs({});
  // (1000 × $2.50 + 100 × $10) per million × 2
  assert.equal(row!.costMicro, 7_000);
  assert.deepEqual([row!.servedModel, row!.upstreamModel, row!.line, row!.upstreamProtocol], ['gpt-4o', 'vendor-4o', 'l1', 'openai-chat']);
  assert.equal(ledger.balanceMicro(), 10_000_000 - 7_000);
  assert.equal(b.reservations.heldMicro(), 0);
  b.admit(limited, 'gpt-4o', { maxOutputTokens: 1, estimatedInputTokens: 1 });
});

test('a request refused before admission is logged at no cost', async () => {
  const { b, ledger } = billing(1_000);
  await b.settle(charge({ status: 401, errorCode: 'invalid_api_key', errorMessage: 'no', keyId: null, keyName: null }));
  const [row] = ledger.logs({});
  assert.deepEqual([row!.status, row!.costMicro, row!.servedModel, row!.usage], [401, 0, null, emptyUsage()]);
  assert.equal(ledger.balanceMicro(), 1_000);
});

test('a ledger write that fails is reported, never thrown, and the money stays', async () => {
  const { b, ledger } = billing(10_000_000);
  const a = b.admit(key(), 'gpt-4o', { maxOutputTokens: 10, estimatedInputTokens: 10 });
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string) => written.push(s) > 0) as typeof process.stderr.write;
  try {
    await b.settle(charge({ admission: a, usage: { ...emptyUsage(), inputTokens: 10 }, inboundProtocol: null as unknown as string }));
  } finally {
    process.stderr.write = write;
  }
  assert.match(written.join(''), /could not write the ledger row of req_1/);
  assert.equal(ledger.balanceMicro(), 10_000_000);
  assert.equal(b.reservations.heldMicro(), 0);
});
