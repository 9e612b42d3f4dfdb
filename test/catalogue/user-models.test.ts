/** The user's entries over the presets' catalogue: custom models, price overrides, what is ignored and why, and the live rebuild. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalogue, loadCatalogue, loadPresets, retiredModels } from '../../gateway/catalogue/catalogue.js';
import { catalogueClock, LiveCatalogue } from '../../gateway/catalogue/live.js';
import { composeCatalogue } from '../../gateway/catalogue/user-models.js';
import type { ConfigData, CustomModelRecord } from '../../gateway/store/types.js';

const presets = loadCatalogue();
const custom = (over: Partial<CustomModelRecord> = {}): CustomModelRecord => ({
  id: 'acme-1',
  vendor: 'acme',
  displayName: 'Acme 1',
  contextWindow: 200_000,
  maxOutputTokens: 32_000,
  nativeProtocols: ['openai-chat'],
  prices: { input: 3_000_000, output: 15_000_000, cacheRead: 300_000, cacheWrite: 3_750_000 },
  source: 'user',
  createdAt: '2026-11-24T00:00:00.000Z',
  updatedAt: '2026-11-24T00:00:00.000Z',
  ...over,
});

test('a custom model is a catalogue entry like any other, after the presets', () => {
  const { models, problems } = composeCatalogue(presets, { models: [custom()] });
  assert.deepEqual(problems, []);
  assert.equal(models.size, presets.size + 1);
  assert.equal([...models.keys()].at(-1), 'acme-1');
  assert.deepEqual(models.get('acme-1'), {
    id: 'acme-1',
    vendor: 'acme',
    displayName: 'Acme 1',
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    nativeProtocols: ['openai-chat'],
    prices: { input: 3_000_000, output: 15_000_000, cacheRead: 300_000, cacheWrite: 3_750_000 },
    origin: 'custom',
    retires: null,
    replacement: null,
  });
});

test("an override replaces the kinds it gives and keeps the preset's prices beside them", () => {
  const { models } = composeCatalogue(presets, {
    priceOverrides: [{ id: 'gpt-4o-mini', prices: { input: 160_000 }, source: 'user', updatedAt: '' }],
  });
  const m = models.get('gpt-4o-mini')!;
  assert.deepEqual(m.prices, { ...presets.get('gpt-4o-mini')!.prices, input: 160_000 });
  assert.deepEqual(m.presetPrices, presets.get('gpt-4o-mini')!.prices);
  assert.equal(presets.get('gpt-4o-mini')!.prices.input, 150_000, 'the presets are not changed');
  assert.equal(models.get('gpt-4o')!.presetPrices, undefined);
});

test('entries that cannot apply are ignored and named', () => {
  const { models, problems } = composeCatalogue(presets, {
    models: [
      custom({ id: 'bad price', prices: { input: -1 } }),
      custom({ id: 'no-cache', prices: { input: 1, output: 2 } }),
      custom({ id: 'gpt-4o', displayName: 'Mine' }),
    ],
    priceOverrides: [
      { id: 'gone-model', prices: { input: 1 }, source: 'user', updatedAt: '' },
      { id: 'gpt-5', prices: { video: 1 }, source: 'user', updatedAt: '' },
    ],
  });
  assert.deepEqual(problems, [
    'the price override of gpt-5 is ignored: unknown price kind "video" (kinds: input, output, cacheRead, cacheWrite, cacheWrite1h, audioInput, imageInput)',
    'the price override of gone-model is ignored: no preset model has that id',
    'the custom model bad price is ignored: its id may hold only letters, digits and . _ : / @ + - (at most 200)',
    'the custom model no-cache is ignored: prices lack cacheRead, cacheWrite',
    "the custom model gpt-4o replaces the preset model of that id (remove yours to use the preset's)",
  ]);
  assert.equal(models.get('gpt-4o')!.displayName, 'Mine');
  assert.equal(models.get('gpt-5')!.prices, presets.get('gpt-5')!.prices);
  assert.ok(!models.has('no-cache'));
});

test('the live catalogue follows config changes, and a model object taken before a change keeps its prices', () => {
  const listeners: (() => void)[] = [];
  const data: ConfigData = {
    version: 1,
    keys: [],
    lines: [],
    groups: [],
    aliases: [],
    models: [custom()],
    priceOverrides: [],
  };
  const all = loadPresets();
  const built = buildCatalogue(all);
  const live = new LiveCatalogue(built, retiredModels(all, built), { data, onChange: (l) => listeners.push(l) });
  const before = live.get('acme-1')!;
  data.models![0] = custom({ prices: { ...custom().prices, input: 4_000_000 } });
  for (const l of listeners) l();
  assert.equal(live.get('acme-1')!.prices.input, 4_000_000);
  assert.equal(before.prices.input, 3_000_000, 'an admitted request keeps the prices it was admitted with');
  assert.equal(live.size, built.size + 1);
  assert.deepEqual(
    [...live.keys()],
    [...live].map(([k]) => k),
  );
  assert.equal(live.retired.get('o4-mini')?.replacement, 'gpt-5.4-mini');
});

test('TOLLGATE_CATALOGUE_DATE fixes the clock to noon UTC of that day; nonsense is refused', () => {
  assert.equal(catalogueClock(undefined), Date.now);
  assert.equal(catalogueClock('2027-01-14')(), Date.parse('2027-01-14T12:00:00Z'));
  assert.throws(() => catalogueClock('14/01/2027'), /TOLLGATE_CATALOGUE_DATE must be a date/);
});
