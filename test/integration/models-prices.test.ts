/**
 * Prices the user sets, end to end through the admin API and the official SDKs against the mock
 * upstream: overrides of preset prices and their reset, each row's price snapshot and breakdown,
 * custom models edited and removed, and a LiteLLM price file previewed, applied and downloaded.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { CallArgs, Reply, RouteName } from '../../gateway/contract/admin/index.js';
import { refusal, REPO, startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;
let openai: OpenAI;

before(async () => {
  gw = await startGateway();
  mock = await startMockUpstream();
  await gw.admin.topup(20);
  openai = gw.openai(await gw.admin.key('models-test'));
  // A model added from an OpenRouter line's list, which the LiteLLM file prices under openrouter/.
  await call('addModel', {
    body: {
      id: 'acme/priced-model',
      vendor: 'openrouter',
      prices: { input: 1, output: 1, cacheRead: 125_000, cacheWrite: 1_562_500 },
    },
  });
});

after(async () => {
  await gw.close();
  await mock.close();
});

function call<N extends RouteName>(name: N, ...args: CallArgs<N>): Promise<Reply<N>> {
  return gw.admin.client.call(name, ...args);
}

describe('prices of preset models: override, reset', () => {
  test("an override bills new rows at the new price; old rows keep theirs; reset goes back to the preset's", async () => {
    await gw.admin.line({
      name: 'mini',
      baseUrl: scenarioBase(mock, 'usage-in=100000,usage-out=10000'),
      models: ['gpt-4o-mini'],
      priority: 10,
    });
    const preset = (await call('getModel', { params: { id: 'gpt-4o-mini' } })).model;
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a' }] });
    const { model } = await call('updateModel', {
      params: { id: 'gpt-4o-mini' },
      body: { prices: { input: 200_000 } },
    });
    assert.deepEqual(
      [model.prices.input, model.presetPrices?.input, model.prices.output],
      [200_000, preset.prices.input, preset.prices.output],
    );
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'b' }] });
    const [newer, older] = await gw.admin.logs({ model: 'gpt-4o-mini', limit: 2 });
    assert.equal(older?.costMicro, 15_000 + 6_000, '100k input at $0.15/M + 10k output at $0.60/M');
    assert.equal(newer?.costMicro, 20_000 + 6_000);
    // Each row keeps the prices it was billed at, and explains its cost with them.
    assert.deepEqual(
      [older?.billedAt?.prices.input, older?.billedAt?.multiplierPpm, newer?.billedAt?.prices.input],
      [150_000, 1_000_000, 200_000],
    );
    assert.equal(older?.breakdown?.formula, '100000 input × $0.15/M + 10000 output × $0.6/M = $0.021');
    assert.deepEqual(
      newer?.breakdown?.terms.map((t) => [t.usage, t.tokens, t.priceMicroPerMillion, t.usd]),
      [
        ['inputTokens', 100_000, 200_000, '0.02'],
        ['outputTokens', 10_000, 600_000, '0.006'],
      ],
    );
    assert.equal(newer?.breakdown?.costMicro, newer?.costMicro);
    const refusedFields = await refusal(
      call('updateModel', { params: { id: 'gpt-4o-mini' }, body: { contextWindow: 1 } }),
    );
    assert.deepEqual([refusedFields.status, refusedFields.code], [400, 'preset_model']);
    const reset = (await call('resetModel', { params: { id: 'gpt-4o-mini' } })).model;
    assert.deepEqual([reset.prices, reset.presetPrices], [preset.prices, null]);
    const [kept] = await gw.admin.logs({ model: 'gpt-4o-mini', limit: 1 });
    assert.deepEqual(
      [kept?.costMicro, kept?.billedAt?.prices.input, kept?.breakdown?.costMicro],
      [26_000, 200_000, 26_000],
      'a reset changes no row, nor its explanation',
    );
  });

  test("a row's breakdown: tokens × price per kind, × the group's multiplier, rounded up once = its cost", async () => {
    await call('addModel', { body: { id: 'explain-model', prices: { input: 3_000_001, output: 15_000_000 } } });
    await gw.admin.line({
      name: 'explain',
      baseUrl: scenarioBase(mock, 'usage-in=1234,usage-out=567'),
      models: ['explain-model'],
      modelMap: { 'explain-model': 'mock-small' },
    });
    await gw.admin.group('pricier', '1.5', ['explain-model']);
    const client = gw.openai(await gw.admin.key('explained', { group: 'pricier' }));
    await client.chat.completions.create({ model: 'explain-model', messages: [{ role: 'user', content: 'why' }] });
    const [row] = await gw.admin.logs({ model: 'explain-model', limit: 1 });
    // (1234 × 3.000001 + 567 × 15) / 1e6 = $0.012207001234; × 1.5 = $0.018310501851; rounded up: 18 311 micro-USD.
    assert.equal(row?.costMicro, 18_311);
    assert.deepEqual(
      [row?.breakdown?.subtotalUsd, row?.breakdown?.multiplier, row?.breakdown?.costMicro],
      ['0.012207001234', '1.5', 18_311],
    );
    assert.equal(
      row?.breakdown?.formula,
      '1234 input × $3.000001/M + 567 output × $15/M = $0.012207001234 × 1.5 = $0.018310501851 → $0.018311 (rounded up to the micro-USD)',
    );
    await call('updateModel', { params: { id: 'explain-model' }, body: { prices: { input: 1 } } });
    const [same] = await gw.admin.logs({ model: 'explain-model', limit: 1 });
    assert.deepEqual(same?.breakdown, row?.breakdown, 'a price change leaves the row and its explanation as they were');
  });

  test('setting a kind back to the preset price drops the override; null takes a kind away', async () => {
    await call('updateModel', { params: { id: 'gpt-4o' }, body: { prices: { input: 1, cacheRead: 2 } } });
    assert.deepEqual(
      (await call('updateModel', { params: { id: 'gpt-4o' }, body: { prices: { input: null } } })).model.prices.input,
      2_500_000,
    );
    const back = (await call('updateModel', { params: { id: 'gpt-4o' }, body: { prices: { cacheRead: 1_250_000 } } }))
      .model;
    assert.equal(back.presetPrices, null, 'no kind differs any more: no override');
  });

  test('custom models: update any field, remove one in use only with force, presets are never removed', async () => {
    await call('addModel', { body: { id: 'tmp-model', prices: { input: 1, output: 2, audioInput: 5 } } });
    const changed = (
      await call('updateModel', {
        params: { id: 'tmp-model' },
        body: { displayName: 'Temp', prices: { output: 3, audioInput: null } },
      })
    ).model;
    assert.deepEqual(
      [changed.displayName, changed.prices],
      ['Temp', { input: 1, output: 3, cacheRead: 1, cacheWrite: 1 }],
    );
    const noInput = await refusal(
      call('updateModel', { params: { id: 'tmp-model' }, body: { prices: { input: null } } }),
    );
    assert.equal(noInput.code, 'bad_prices');
    await gw.admin.line({ name: 'tmp-line', baseUrl: scenarioBase(mock, ''), models: ['tmp-model', 'gpt-4o'] });
    await call('addAlias', { body: { pattern: 'temp-*', model: 'tmp-model' } });
    const inUse = await refusal(call('removeModel', { params: { id: 'tmp-model' } }));
    assert.deepEqual([inUse.status, inUse.code], [409, 'model_in_use']);
    assert.match(inUse.message, /named by line tmp-line, alias temp-\*/);
    await call('removeModel', { params: { id: 'tmp-model' }, query: { force: true } });
    assert.deepEqual((await call('listLines')).lines.find((l) => l.name === 'tmp-line')?.models, ['gpt-4o']);
    assert.ok(!(await call('listAliases')).aliases.some((a) => a.pattern === 'temp-*'));
    assert.equal((await refusal(call('getModel', { params: { id: 'tmp-model' } }))).code, 'unknown_model');
    const preset = await refusal(call('removeModel', { params: { id: 'gpt-4o' } }));
    assert.deepEqual([preset.code, preset.status], ['preset_model', 400]);
    const dup = await refusal(call('addModel', { body: { id: 'gpt-4o', prices: { input: 1, output: 1 } } }));
    assert.deepEqual([dup.status, dup.code], [409, 'model_exists']);
    const noPrice = await refusal(call('addModel', { body: { id: 'free-lunch', prices: { input: 1 } } }));
    assert.equal(noPrice.code, 'bad_prices');
    const badId = await refusal(call('addModel', { body: { id: 'has space', prices: { input: 1, output: 1 } } }));
    assert.equal(badId.code, 'invalid_request');
  });
});

describe('a LiteLLM price file', () => {
  const FIXTURE = JSON.parse(
    readFileSync(join(REPO, 'test/fixtures/litellm/model_prices_and_context_window.json'), 'utf8'),
  ) as Record<string, unknown>;

  test('a dry run shows the changes and writes nothing; the real run with its digest writes them; a stale digest is refused', async () => {
    const plan = await call('importPrices', {
      body: { data: FIXTURE, dryRun: true, only: ['gpt-4.1-mini', 'gemini-2.5-flash', 'claude-haiku-4-5'] },
    });
    assert.deepEqual([plan.dryRun, plan.applied, plan.source], [true, false, 'data']);
    assert.deepEqual(plan.changes, [
      {
        id: 'claude-haiku-4-5',
        entry: 'claude-haiku-4-5',
        target: 'override',
        prices: [],
        // The file's input_cost_per_token_above_200k_tokens: a tier the preset lacks.
        tiers: [{ above: 200_000, prices: { input: 2_000_000 } }],
      },
      {
        id: 'gemini-2.5-flash',
        entry: 'gemini/gemini-2.5-flash',
        target: 'override',
        prices: [{ kind: 'input', from: 300_000, to: 350_000, exact: true }],
      },
    ]);
    assert.deepEqual([plan.unchanged, plan.unmatched], [[], ['gpt-4.1-mini']]);
    assert.equal(
      (await call('getModel', { params: { id: 'gemini-2.5-flash' } })).model.prices.input,
      300_000,
      'a dry run changes nothing',
    );
    const stale = await refusal(
      call('importPrices', { body: { data: FIXTURE, only: ['gemini-2.5-flash'], expect: 'not-the-digest' } }),
    );
    assert.deepEqual([stale.status, stale.code], [409, 'prices_changed']);
    const done = await call('importPrices', {
      body: { data: FIXTURE, only: ['gpt-4.1-mini', 'gemini-2.5-flash', 'claude-haiku-4-5'], expect: plan.digest },
    });
    assert.equal(done.applied, true);
    const m = (await call('getModel', { params: { id: 'gemini-2.5-flash' } })).model;
    assert.deepEqual([m.prices.input, m.presetPrices?.input, m.prices.audioInput], [350_000, 300_000, 1_000_000]);
    const haiku = (await call('getModel', { params: { id: 'claude-haiku-4-5' } })).model;
    assert.deepEqual(
      [haiku.prices.input, haiku.tiers],
      [1_000_000, [{ above: 200_000, prices: { input: 2_000_000 } }]],
    );
    await call('resetModel', { params: { id: 'claude-haiku-4-5' } });
    assert.equal((await call('getModel', { params: { id: 'claude-haiku-4-5' } })).model.tiers, undefined);
  });

  test('from a URL the gateway downloads; custom models take their new prices too', async () => {
    const server = await import('node:http').then(({ createServer }) =>
      createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(FIXTURE)),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/model_prices_and_context_window.json`;
      const done = await call('importPrices', { body: { url, only: ['acme/priced-model', 'gpt-4o-mini'] } });
      assert.equal(done.source, url);
      assert.deepEqual(
        done.changes.map((c) => [c.id, c.target]),
        [
          ['gpt-4o-mini', 'override'],
          ['acme/priced-model', 'custom'],
        ],
      );
      assert.deepEqual((await call('getModel', { params: { id: 'acme/priced-model' } })).model.prices, {
        input: 1_500_000,
        output: 12_000_000,
        cacheRead: 125_000,
        cacheWrite: 1_562_500,
      });
    } finally {
      server.close();
    }
    await call('resetModel', { params: { id: 'gpt-4o-mini' } });
  });

  test('refusals: neither or both sources, a bad URL, a file that is no price list, an unknown id', async () => {
    assert.equal((await refusal(call('importPrices', { body: { dryRun: true } }))).code, 'invalid_request');
    assert.equal(
      (await refusal(call('importPrices', { body: { data: {}, url: 'https://x.test' } }))).code,
      'invalid_request',
    );
    assert.equal((await refusal(call('importPrices', { body: { url: 'file:///etc/passwd' } }))).code, 'bad_url');
    assert.equal(
      (await refusal(call('importPrices', { body: { url: 'http://127.0.0.1:9/prices.json' } }))).code,
      'download_failed',
    );
    assert.equal((await refusal(call('importPrices', { body: { data: { a: { b: 1 } } } }))).code, 'not_a_price_file');
    assert.equal(
      (await refusal(call('importPrices', { body: { data: FIXTURE, only: ['nope'] } }))).code,
      'unknown_model',
    );
  });
});
