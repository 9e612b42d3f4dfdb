/**
 * Long-context prices (docs/money.md, "Price tiers"): above a model's threshold the whole request
 * is billed at the tier's prices, per kind. A GPT-5.4 request whose prompt is 300K tokens, from the
 * official SDK, is charged 2× input, 2× cached input and 1.5× output, the log row keeps the tier in
 * its price snapshot, and the breakdown says so first; below the threshold the base prices apply.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(50);
  const line = (name: string, scenario: string) =>
    gw.admin.line({
      name,
      baseUrl: scenarioBase(mock, scenario),
      models: ['gpt-5.4'],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    });
  await line('long', 'usage-in=300000,usage-cached=100000,usage-out=1000');
  key = await gw.admin.key('tiers');
});

after(async () => {
  await gw.close();
  await mock.close();
});

test('a 300K-token GPT-5.4 request is billed at the tier above 272K, and the row explains it', async () => {
  const before = (await gw.admin.wallet()).balanceMicro;
  const r = await gw
    .openai(key)
    .chat.completions.create({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.usage?.prompt_tokens, 300_000);
  const row = (await gw.admin.logs({ limit: 1 }))[0]!;
  // 200K uncached × $5 + 100K cached × $0.50 + 1K output × $22.50 (base: $2.50, $0.25, $15).
  const expected = 200_000 * 5 + 100_000 * 0.5 + 1_000 * 22.5;
  assert.equal(row.costMicro, expected);
  assert.equal(before - (await gw.admin.wallet()).balanceMicro, expected);
  assert.deepEqual(row.billedAt?.tier, {
    above: 272_000,
    prices: { input: 5_000_000, output: 22_500_000, cacheRead: 500_000 },
  });
  assert.equal(row.billedAt?.prices.input, 2_500_000, 'the snapshot keeps the base prices beside the tier');
  assert.match(row.breakdown!.formula, /^above 272K: ×2 input, ×1\.5 output, ×2 cache read; /);
  assert.deepEqual(
    row.breakdown!.terms.map((t) => [t.usage, t.priceMicroPerMillion]),
    [
      ['inputTokens', 5_000_000],
      ['cacheReadTokens', 500_000],
      ['outputTokens', 22_500_000],
    ],
  );
  assert.equal(row.breakdown!.costMicro, row.costMicro);
});

test('below the threshold the base prices apply and no tier is recorded', async () => {
  await gw.admin.line({
    name: 'short',
    baseUrl: scenarioBase(mock, 'usage-in=272000,usage-out=1000'),
    models: ['gpt-5.4'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    priority: 10,
  });
  await gw.openai(key).chat.completions.create({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }] });
  const row = (await gw.admin.logs({ limit: 1 }))[0]!;
  assert.equal(row.line, 'short');
  assert.equal(row.costMicro, 272_000 * 2.5 + 1_000 * 15);
  assert.equal(row.billedAt?.tier, undefined);
  assert.doesNotMatch(row.breakdown!.formula, /above/);
});

test("a preset model's tiers as the user overrides them are what requests are billed at; reset brings the preset's back", async () => {
  const { model: m } = await gw.admin.call('updateModel', {
    params: { id: 'gpt-5.4' },
    body: { tiers: [{ above: 100_000, prices: { input: 10_000_000 } }] },
  });
  assert.deepEqual(m.tiers, [{ above: 100_000, prices: { input: 10_000_000 } }]);
  await gw.admin.call('updateLine', { params: { name: 'short' }, body: { enabled: false } });
  await gw.openai(key).chat.completions.create({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }] });
  const row = (await gw.admin.logs({ limit: 1 }))[0]!;
  // The user's tier replaces the preset's: input at $10, everything else at the base price.
  assert.equal(row.costMicro, 200_000 * 10 + 100_000 * 0.25 + 1_000 * 15);
  assert.match(row.breakdown!.formula, /^above 100K: ×4 input; /);
  await gw.admin.call('resetModel', { params: { id: 'gpt-5.4' } });
  assert.equal((await gw.admin.modelOf('gpt-5.4')).tiers?.[0]?.above, 272_000, 'reset brings the preset tier back');
  const refused = await gw.admin
    .call('updateModel', {
      params: { id: 'gpt-5.4' },
      body: {
        tiers: [
          { above: 200_000, prices: { input: 1 } },
          { above: 100_000, prices: { input: 2 } },
        ],
      },
    })
    .then(
      () => undefined,
      (e: { status: number; message: string }) => e,
    );
  assert.equal(refused?.status, 400);
  assert.match(refused!.message, /larger than the tier before it/);
});
