/**
 * Prices from a LiteLLM price file, on a fixture in LiteLLM's format (test/fixtures/litellm/):
 * which entry each catalogue model takes (its own id, or its vendor's `provider/id`, never a
 * reseller's), exact conversion of per-token prices, and what is left alone and why.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalogue } from '../../gateway/catalogue/catalogue.js';
import { planLiteLLMImport } from '../../gateway/catalogue/litellm.js';
import { composeCatalogue } from '../../gateway/catalogue/user-models.js';
import type { CustomModelRecord } from '../../gateway/store/types.js';
import { REPO } from '../helpers/gateway.js';

const FILE: unknown = JSON.parse(
  readFileSync(join(REPO, 'test/fixtures/litellm/model_prices_and_context_window.json'), 'utf8'),
);
const custom = (id: string, vendor: string): CustomModelRecord => ({
  id,
  vendor,
  displayName: id,
  contextWindow: 128_000,
  maxOutputTokens: 128_000,
  nativeProtocols: ['openai-chat'],
  prices: { input: 1_000_000, output: 2_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 },
  source: 'user',
  createdAt: '',
  updatedAt: '',
});
const catalogue = composeCatalogue(loadCatalogue(), {
  models: [custom('acme/priced-model', 'openrouter'), custom('acme-7', 'acme')],
}).models;
const plan = planLiteLLMImport(FILE, catalogue.values());
const change = (id: string) => plan.changes.find((c) => c.id === id);

test('a preset model whose prices differ becomes an override, per kind that differs, converted exactly', () => {
  assert.deepEqual(change('gpt-4o-mini'), {
    id: 'gpt-4o-mini',
    entry: 'gpt-4o-mini',
    target: 'override',
    prices: [
      { kind: 'input', from: 150_000, to: 160_000, exact: true },
      { kind: 'cacheRead', from: 75_000, to: 80_000, exact: true },
    ],
  });
});

test('prices and tiers that agree are unchanged; 1-hour cache and per-image fields are not read', () => {
  assert.ok(plan.unchanged.includes('gpt-5.4'), 'its _above_272k_tokens fields equal the preset tier');
  assert.equal(change('gpt-5.4'), undefined);
});

test('`_above_<N>k_tokens` fields become a price tier above N thousand prompt tokens', () => {
  // claude-haiku-4-5's base prices agree; the file adds a tier the preset does not have.
  assert.deepEqual(change('claude-haiku-4-5'), {
    id: 'claude-haiku-4-5',
    entry: 'claude-haiku-4-5',
    target: 'override',
    prices: [],
    tiers: [{ above: 200_000, prices: { input: 2_000_000 } }],
  });
});

test("the vendor's own prefixed entry wins over a reseller's bare key", () => {
  // gemini-2.5-flash is keyed bare by vertex_ai and as gemini/gemini-2.5-flash by Google AI Studio (the google preset's API).
  assert.deepEqual(change('gemini-2.5-flash'), {
    id: 'gemini-2.5-flash',
    entry: 'gemini/gemini-2.5-flash',
    target: 'override',
    prices: [{ kind: 'input', from: 300_000, to: 350_000, exact: true }],
  });
});

test("other providers' prefixes never match: azure/, azure_ai/, a bedrock id", () => {
  for (const id of ['gpt-4.1', 'deepseek-flash', 'claude-haiku-4-5-20251001'])
    assert.ok(plan.unmatched.includes(id), id);
});

test('a price finer than $0.000001 per million tokens is rounded up, and says so', () => {
  assert.deepEqual(change('kimi-k2.6')?.prices, [{ kind: 'input', from: 950_000, to: 950_001, exact: false }]);
});

test('entries that are not per-token chat prices are skipped with the reason', () => {
  assert.deepEqual(
    plan.skipped.map((s) => [s.id, s.entry, s.reason]),
    [
      ['o3-pro', 'o3-pro', 'input_cost_per_token is "0.00002", not a price'],
      ['grok-4.3', 'grok-4.3', 'its mode is image_generation, not a chat model priced per token'],
    ],
  );
});

test('custom models take prices too: by `openrouter/<id>` for an OpenRouter model, by a bare key of another provider when that is all there is', () => {
  assert.deepEqual(change('acme/priced-model'), {
    id: 'acme/priced-model',
    entry: 'openrouter/acme/priced-model',
    target: 'custom',
    prices: [
      { kind: 'input', from: 1_000_000, to: 1_500_000, exact: true },
      { kind: 'output', from: 2_000_000, to: 12_000_000, exact: true },
    ],
  });
  assert.equal(change('acme-7')?.entry, 'acme-7');
});

test('only: the named ids and no others; the digest follows the changes', () => {
  const one = planLiteLLMImport(FILE, catalogue.values(), ['gpt-4o-mini', 'gpt-5.4']);
  assert.deepEqual(
    one.changes.map((c) => c.id),
    ['gpt-4o-mini'],
  );
  assert.deepEqual(one.unchanged, ['gpt-5.4']);
  assert.deepEqual(one.unmatched, []);
  assert.notEqual(one.digest, plan.digest);
  assert.equal(
    planLiteLLMImport(FILE, catalogue.values()).digest,
    plan.digest,
    'the same file and catalogue give the same digest',
  );
  assert.equal(plan.entries, Object.keys(FILE as object).length - 1, 'sample_spec is not an entry');
});

test('a file that is not a LiteLLM price list is refused', () => {
  assert.throws(() => planLiteLLMImport([1, 2], catalogue.values()), /JSON object of entries/);
  assert.throws(() => planLiteLLMImport({ a: { price: 1 } }, catalogue.values()), /not a LiteLLM price file/);
});
