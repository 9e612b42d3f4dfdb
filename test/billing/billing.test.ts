/** Admission and settlement (billing/billing.ts) over a real ledger, with the model and line lookups faked. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  Billing,
  DEFAULT_RESERVED_OUTPUT_TOKENS,
  MIN_OUTPUT_TOKENS,
  type AdmitInput,
  type Charge,
} from '../../gateway/billing/billing.js';
import { affordableOutputTokens, costMicro, reservationMicro } from '../../gateway/billing/pricing.js';
import { GatewayError } from '../../gateway/core/errors.js';
import { emptyUsage } from '../../gateway/core/usage.js';
import { Ledger } from '../../gateway/store/ledger.js';
import type { KeyRecord } from '../../gateway/store/types.js';
import { line, MODEL } from '../helpers/relay-fakes.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const key = (over: Partial<KeyRecord> = {}): KeyRecord => ({
  id: 'key_a',
  name: 'a',
  hash: 'h',
  last4: 'x',
  group: 'default',
  quotaMicro: null,
  expiresAt: null,
  state: 'enabled',
  createdAt: '',
  ...over,
});

function billing(
  balanceMicro: number,
  lines = [line('l1', { modelMap: { 'gpt-4o': 'vendor-4o' } }), line('l2')],
  model = MODEL,
) {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-billing-'));
  dirs.push(dir);
  const ledger = new Ledger(dir);
  if (balanceMicro > 0) ledger.topup(balanceMicro);
  const b = new Billing(
    ledger,
    {
      resolve: (id) => {
        if (id !== MODEL.id) throw new GatewayError('model_not_found', 'no', { code: 'model_not_found' });
        return { model, multiplierPpm: 2_000_000 };
      },
    },
    {
      order: () => {
        if (lines.length === 0)
          throw new GatewayError('upstream_unavailable', 'no line', { code: 'no_line_for_model' });
        return lines;
      },
    },
  );
  return { b, ledger };
}

let requests = 0;
/** What the relay hands admission: the client's output limit, the prompt estimate, and the request's trace. */
const input = (maxOutputTokens: number | undefined, estimatedInputTokens: number): AdmitInput => ({
  maxOutputTokens,
  estimatedInputTokens,
  trace: {
    requestId: `req_${++requests}`,
    ts: Date.now(),
    inboundProtocol: 'openai-chat',
    stream: false,
    model: 'gpt-4o',
  },
});

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
  session: null,
  agent: null,
  tool: null,
  project: null,
  ...over,
});

test('admission reserves the worst case at the group multiplier and hands over the lines to try', () => {
  const { b } = billing(10_000_000);
  const a = b.admit(key(), 'gpt-4o', input(100, 1_000));
  assert.equal(a.reservation.amountMicro, reservationMicro(1_000, 100, MODEL.prices, 2_000_000));
  assert.deepEqual([a.line.id, a.upstreamModel, a.candidates.map((l) => l.id)], ['l1', 'vendor-4o', ['l1', 'l2']]);
  assert.equal(b.reservations.heldMicro(), a.reservation.amountMicro);
});

test("without a limit from the client, the model's own output cap (at most the default) is reserved", () => {
  const { b } = billing(10_000_000);
  const a = b.admit(key(), 'gpt-4o', input(undefined, 0));
  assert.equal(
    a.reservation.amountMicro,
    reservationMicro(0, Math.min(DEFAULT_RESERVED_OUTPUT_TOKENS, MODEL.maxOutputTokens), MODEL.prices, 2_000_000),
  );
});

test('a prompt far past the context window is refused; its text is read only when the cheap bound cannot settle it', () => {
  const { b } = billing(10_000_000);
  let reads = 0;
  const text = (atMost: number, tokens: number): AdmitInput['text'] => ({
    atMost,
    tokens: () => {
      reads++;
      return tokens;
    },
  });
  const window = MODEL.contextWindow;
  b.admit(key(), 'gpt-4o', { ...input(1, 1), text: text(2 * window, 2 * window) });
  assert.equal(reads, 0, 'a bound within twice the window settles it: the body is not read');
  b.admit(key(), 'gpt-4o', { ...input(1, 1), text: text(10 * window, 2 * window) });
  assert.equal(reads, 1, 'past the bound, the estimate decides (and lets this one in)');
  assert.throws(() => b.admit(key(), 'gpt-4o', { ...input(1, 1), text: text(10 * window, 2 * window + 1) }), {
    status: 400,
    code: 'context_length_exceeded',
  });
});

test('the order of refusals: model (404), line (503), key limits (429), money (402)', () => {
  assert.throws(() => billing(0).b.admit(key(), 'nope', input(1, 1)), { status: 404 });
  assert.throws(() => billing(0, []).b.admit(key(), 'gpt-4o', input(1, 1)), { code: 'no_line_for_model' });
  const { b } = billing(0);
  const limited = key({ maxConcurrent: 1 });
  assert.throws(() => b.admit(limited, 'gpt-4o', input(1, 1)), { status: 402, code: 'insufficient_balance' });
  // The refused request gave its concurrency slot back: the next one is refused for money again, not for concurrency.
  assert.throws(() => b.admit(limited, 'gpt-4o', input(1, 1)), { status: 402 });
  // The key's rate is checked before the money: the refused request used the minute's one slot.
  const once = key({ id: 'key_b', rpm: 1 });
  assert.throws(() => b.admit(once, 'gpt-4o', input(1, 1)), { status: 402 });
  assert.throws(() => b.admit(once, 'gpt-4o', input(1, 1)), { status: 429, code: 'key_rate_limited' });
});

test("settlement writes the row at the admission's prices and gives back the reservation and the key's slot", async () => {
  const { b, ledger } = billing(10_000_000);
  const limited = key({ maxConcurrent: 1 });
  const a = b.admit(limited, 'gpt-4o', input(100, 1_000));
  assert.throws(() => b.admit(limited, 'gpt-4o', input(1, 1)), { code: 'key_concurrency_limited' });
  const usage = { ...emptyUsage(), inputTokens: 1_000, outputTokens: 100 };
  await b.settle(charge({ admission: a, usage }));
  const [row] = ledger.logs({});
  // (1000 × $2.50 + 100 × $10) per million × 2
  assert.equal(row!.costMicro, 7_000);
  assert.deepEqual(
    [row!.servedModel, row!.upstreamModel, row!.line, row!.upstreamProtocol],
    ['gpt-4o', 'vendor-4o', 'l1', 'openai-chat'],
  );
  assert.equal(ledger.balanceMicro(), 10_000_000 - 7_000);
  assert.equal(b.reservations.heldMicro(), 0);
  b.admit(limited, 'gpt-4o', input(1, 1));
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
  const a = b.admit(key(), 'gpt-4o', input(10, 10));
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string) => written.push(s) > 0) as typeof process.stderr.write;
  try {
    await b.settle(
      charge({ admission: a, usage: { ...emptyUsage(), inputTokens: 10 }, inboundProtocol: null as unknown as string }),
    );
  } finally {
    process.stderr.write = write;
  }
  assert.match(written.join(''), /could not write the ledger row of req_1/);
  assert.equal(ledger.balanceMicro(), 10_000_000);
  assert.equal(b.reservations.heldMicro(), 0);
});

describe('neither the wallet nor a quota is overspent', () => {
  test('a request that costs more than it reserved is charged what the wallet has free, never more: the rest is recorded, not charged', async () => {
    const { b, ledger } = billing(2_000_000);
    const a = b.admit(key(), 'gpt-4o', input(10, 10));
    // Another request in flight holds its own reservation: that money stays its.
    const other = b.admit(key({ id: 'key_b', name: 'b' }), 'gpt-4o', input(10, 10));
    // The upstream ignored max_tokens=10 and reported 100,000 output tokens: $2.00 at ×2, beyond the wallet.
    await b.settle(charge({ admission: a, usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 100_000 } }));
    const [row] = ledger.logs({});
    const full = costMicro({ ...emptyUsage(), inputTokens: 10, outputTokens: 100_000 }, MODEL.prices, 2_000_000);
    assert.equal(row!.costMicro, 2_000_000 - other.reservation.amountMicro);
    assert.equal(row!.unchargedMicro, full - row!.costMicro);
    assert.match(
      row!.notes ?? '',
      /more than the wallet and the key's quota could pay: charged \$1\.\d+, \$0\.\d+ not charged/,
    );
    assert.equal(ledger.balanceMicro(), other.reservation.amountMicro, 'the other request keeps what it holds');
    await b.settle(charge({ admission: other, usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 10 } }));
    assert.ok(ledger.balanceMicro() >= 0, 'the wallet is never overspent');
    assertInvariant(b, ledger);
  });

  test('a cost beyond the reservation is charged whole when the wallet can pay it', async () => {
    const { b, ledger } = billing(10_000_000);
    const a = b.admit(key(), 'gpt-4o', input(10, 10));
    const usage = { ...emptyUsage(), inputTokens: 10, outputTokens: 100_000 };
    await b.settle(charge({ admission: a, usage }));
    const [row] = ledger.logs({});
    assert.ok(row!.costMicro > a.reservation.amountMicro);
    assert.deepEqual(
      [row!.costMicro, row!.unchargedMicro, row!.notes],
      [costMicro(usage, MODEL.prices, 2_000_000), 0, null],
    );
    assertInvariant(b, ledger);
  });

  test("a key's quota is never overspent either", async () => {
    const { b, ledger } = billing(10_000_000);
    const k = key({ quotaMicro: 1_000 });
    const a = b.admit(k, 'gpt-4o', input(20, 10));
    await b.settle(charge({ admission: a, usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 100_000 } }));
    assert.equal(ledger.keyUsageMicro('key_a'), 1_000, 'charged up to the quota, no further');
    assert.deepEqual(ledger.problems(new Map([['key_a', 1_000]])).overQuota, []);
    assertInvariant(b, ledger);
  });

  test("without a client limit, the model's maximum is reserved when the wallet can pay it, and nothing is sent upstream", () => {
    const { b } = billing(10_000_000);
    const a = b.admit(key(), 'gpt-4o', input(undefined, 100));
    assert.equal(a.reservation.amountMicro, reservationMicro(100, MODEL.maxOutputTokens, MODEL.prices, 2_000_000));
    assert.equal(a.outputLimit, undefined);
  });

  test('without a client limit and a wallet that cannot pay the maximum, the limit is what it can pay, and it goes upstream', () => {
    // $0.10 at ×2 of $10/M output: 5,000 output tokens less the prompt.
    const { b } = billing(100_000);
    const a = b.admit(key(), 'gpt-4o', input(undefined, 100));
    assert.equal(a.outputLimit, affordableOutputTokens(100_000, 100, MODEL.prices, 2_000_000));
    assert.ok(a.outputLimit! > MIN_OUTPUT_TOKENS && a.outputLimit! < MODEL.maxOutputTokens, String(a.outputLimit));
    assert.ok(a.reservation.amountMicro <= 100_000, 'the hold fits the wallet');
    // A second request gets what is left, or a 402 below the floor.
    assert.throws(() => b.admit(key(), 'gpt-4o', input(undefined, 100)), { status: 402, code: 'insufficient_balance' });
  });

  test("the key's free quota bounds the limit as the wallet does", () => {
    const { b } = billing(100_000_000);
    const a = b.admit(key({ quotaMicro: 50_000 }), 'gpt-4o', input(undefined, 0));
    assert.equal(a.outputLimit, affordableOutputTokens(50_000, 0, MODEL.prices, 2_000_000));
  });

  test('below the floor a request without a limit is refused, not cut to a useless answer', () => {
    const { b } = billing(10_000); // pays for 500 output tokens at ×2
    assert.throws(() => b.admit(key(), 'gpt-4o', input(undefined, 0)), { status: 402 });
    assert.equal(b.reservations.heldMicro(), 0);
  });

  test('the prompt estimate is reserved at the dearest prompt-token price (a 1-hour cache write costs twice the input)', () => {
    const claude = {
      input: 3_000_000,
      output: 15_000_000,
      cacheRead: 300_000,
      cacheWrite: 3_750_000,
      cacheWrite1h: 6_000_000,
    };
    assert.equal(reservationMicro(1_000_000, 0, claude, 1_000_000), 6_000_000);
  });
});

describe('settlement never throws', () => {
  test('usage that reached billing unchecked is not billed as it is: the reservation is charged and the row says why', async () => {
    const { b, ledger } = billing(10_000_000);
    const a = b.admit(key(), 'gpt-4o', input(10, 10));
    await b.settle(charge({ admission: a, usage: { ...emptyUsage(), outputTokens: 0.5 } }));
    const [row] = ledger.logs({});
    assert.deepEqual([row!.costMicro, row!.usage], [a.reservation.amountMicro, emptyUsage()]);
    assert.match(row!.notes ?? '', /usage not billable \(outputTokens is 0\.5/);
    assertInvariant(b, ledger);
  });

  test('a settlement never charges more than the balance, even for a hold something took the money from', async () => {
    const { b, ledger } = billing(1_000_000);
    const a = b.admit(key(), 'gpt-4o', input(1_000, 1_000));
    // What no caller can do now (the ledger refuses to adjust into holds): a ledger blind to them.
    ledger.bindHolds(() => 0);
    ledger.adjust(-(1_000_000 - 100), 'taken from under the hold');
    const failed = await b.settle(
      charge({ admission: a, usage: { ...emptyUsage(), inputTokens: 1_000, outputTokens: 1_000 } }),
    );
    assert.equal(failed, null, 'the row is written');
    const [row] = ledger.logs({});
    assert.deepEqual([row!.status, row!.costMicro], [200, 100]);
    assert.equal(
      row!.unchargedMicro,
      costMicro({ ...emptyUsage(), inputTokens: 1_000, outputTokens: 1_000 }, MODEL.prices, 2_000_000) - 100,
    );
    assert.equal(ledger.balanceMicro(), 0);
    assertInvariant(b, ledger);
  });

  test('an admitted request in flight is not left over, and its settlement leaves nothing to close', async () => {
    const { b, ledger } = billing(10_000_000);
    const a = b.admit(key(), 'gpt-4o', input(10, 10));
    ledger.flush();
    // In flight in this process: not left over.
    assert.equal(ledger.problems(new Map()).unsettled.count, 0);
    await b.settle(charge({ admission: a, usage: { ...emptyUsage(), inputTokens: 1 }, requestId: 'req_pending' }));
    assert.equal(ledger.closeInterrupted(), 0);
  });
});

/** top-ups − balance = Σ logged costs, nothing held. */
function assertInvariant(b: Billing, ledger: Ledger): void {
  assert.equal(ledger.checkInvariant().ok, true, JSON.stringify(ledger.checkInvariant()));
  assert.equal(b.reservations.heldMicro(), 0);
}

describe('price tiers', () => {
  const tiered = { ...MODEL, tiers: [{ above: 100_000, prices: { input: 5_000_000, output: 15_000_000 } }] };
  const TIER = { input: 5_000_000, output: 15_000_000, cacheRead: 1_250_000, cacheWrite: 0 };

  test('a prompt estimated above the threshold is held at the tier prices; one below at the base prices', () => {
    const { b } = billing(100_000_000, undefined, tiered);
    const long = b.admit(key(), 'gpt-4o', input(100, 100_001));
    assert.equal(long.reservation.amountMicro, reservationMicro(100_001, 100, TIER, 2_000_000));
    const short = b.admit(key(), 'gpt-4o', input(100, 100_000));
    assert.equal(short.reservation.amountMicro, reservationMicro(100_000, 100, MODEL.prices, 2_000_000));
  });

  test('the charge is at the tier the reported prompt reached, cache reads counted in it, and the snapshot keeps the tier', async () => {
    const { b, ledger } = billing(100_000_000, undefined, tiered);
    const a = b.admit(key(), 'gpt-4o', input(100, 1_000));
    const usage = { ...emptyUsage(), inputTokens: 60_000, cacheReadTokens: 40_001, outputTokens: 10 };
    await b.settle(charge({ admission: a, usage }));
    const [row] = ledger.logs({});
    assert.ok(row);
    assert.equal(row.costMicro, costMicro(usage, TIER, 2_000_000));
    assert.deepEqual(row.billedAt?.tier, tiered.tiers[0]);
    assert.equal(row.breakdown?.costMicro, row.costMicro);
  });
});
