/** relay/usage.ts: the one check of upstream usage before billing, and what a stream cut short is billed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyUsage, type Usage } from '../../gateway/core/usage.js';
import { acceptedUsage, billableUsage, type UsageCounter } from '../../gateway/relay/usage.js';
import { admitted, line } from '../helpers/relay-fakes.js';

const u = (over: Partial<Usage>): Usage => ({ ...emptyUsage(), ...over });
/** Tollgate's own count: a prompt of 40 tokens, and one token per character produced. */
const counter: UsageCounter = { prompt: async () => u({ inputTokens: 40 }), output: async (text) => text.length };

test('whole figures within bounds are billed as the upstream reported them', async () => {
  const { exchange } = admitted([line('a')]);
  const final = u({ inputTokens: 100, outputTokens: 20 });
  assert.deepEqual(await billableUsage(exchange, { final, produced: () => 'never counted' }, counter), {
    usage: final,
    usageEstimated: false,
  });
  assert.deepEqual(exchange.notes, []);
});

for (const [what, bad] of [
  ['a negative output count', { outputTokens: -8_000_000_000 }],
  ['1e300', { outputTokens: 1e300 }],
  ['a fractional count', { inputTokens: 10.5 }],
  ['more than the model can read and write', { inputTokens: 10_000_000 }],
] as const) {
  test(`${what} is refused: Tollgate counts the prompt and the output itself, marks it estimated and says why`, async () => {
    const { exchange } = admitted([line('a')]);
    const billed = await billableUsage(
      exchange,
      { final: u(Object.assign({ inputTokens: 100, outputTokens: 20 }, bad)), produced: () => 'twelve chars' },
      counter,
    );
    assert.deepEqual(billed, { usage: u({ inputTokens: 40, outputTokens: 12 }), usageEstimated: true });
    assert.match(exchange.notes.join(), /upstream usage refused \(.+\): counted by Tollgate/);
  });

  test(`${what}: not accepted as it is either (the pass-through's answer without a promise), and no note until judged`, () => {
    const { exchange } = admitted([line('a')]);
    assert.equal(acceptedUsage(exchange, u(Object.assign({ inputTokens: 100, outputTokens: 20 }, bad))), undefined);
    assert.deepEqual(exchange.notes, []);
  });
}

test('whole figures within bounds are accepted as they are, without a promise; none at all are not', () => {
  const { exchange } = admitted([line('a')]);
  const final = u({ inputTokens: 100, outputTokens: 20 });
  assert.deepEqual(acceptedUsage(exchange, final), { usage: final, usageEstimated: false });
  assert.equal(acceptedUsage(exchange, undefined), undefined);
  assert.deepEqual(exchange.notes, []);
});

test("a stream cut short is billed for what it produced: the prompt as the upstream reported it early, the output counted (not message_start's placeholder)", async () => {
  const { exchange } = admitted([line('a')]);
  const early = u({ inputTokens: 500, cacheReadTokens: 1000, cacheWrite1hTokens: 30, outputTokens: 1 });
  const billed = await billableUsage(
    exchange,
    { final: undefined, prompt: early, produced: () => 'x'.repeat(163) },
    counter,
  );
  assert.deepEqual(billed, {
    usage: u({ inputTokens: 500, cacheReadTokens: 1000, cacheWrite1hTokens: 30, outputTokens: 163 }),
    usageEstimated: true,
  });
});

test('early prompt figures that make no sense are refused too, and the prompt counted', async () => {
  const { exchange } = admitted([line('a')]);
  const billed = await billableUsage(
    exchange,
    { final: undefined, prompt: u({ inputTokens: -5 }), produced: () => 'abc' },
    counter,
  );
  assert.deepEqual(billed, { usage: u({ inputTokens: 40, outputTokens: 3 }), usageEstimated: true });
  assert.match(exchange.notes.join(), /upstream prompt usage refused/);
});

test('no figures at all: all counted', async () => {
  const { exchange } = admitted([line('a')]);
  assert.deepEqual(await billableUsage(exchange, { final: undefined, produced: () => '' }, counter), {
    usage: u({ inputTokens: 40 }),
    usageEstimated: true,
  });
});
