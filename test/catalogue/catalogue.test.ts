import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { buildCatalogue, loadCatalogue, loadPresets } from '../../gateway/catalogue/catalogue.js';

const catalogue = loadCatalogue();
const presets = loadPresets();

/** Presets that own no model: an aggregator that only references others, and two local servers. */
const OWN_NOTHING = ['lmstudio', 'ollama', 'openrouter'];

/**
 * The oracle, read straight from the files without the loader: preset folder → ids of the models
 * it prices (a priced entry defines the model; an entry without prices only references one).
 */
const PRESETS_DIR = new URL('../../gateway/presets/', import.meta.url);
const priced = new Map(
  readdirSync(PRESETS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => {
      const raw = JSON.parse(readFileSync(new URL(`${e.name}/preset.json`, PRESETS_DIR), 'utf8')) as {
        models: { id: string; prices?: unknown }[];
      };
      return [e.name, raw.models.filter((m) => m.prices !== undefined).map((m) => m.id)] as const;
    }),
);

/** micro-USD per million tokens, as [input, output, cacheRead, cacheWrite]. */
const price = (id: string): [number, number, number, number] => {
  const m = catalogue.get(id);
  assert.ok(m, `${id} is not in the catalogue`);
  return [m.prices.input, m.prices.output, m.prices.cacheRead, m.prices.cacheWrite];
};

describe('loadCatalogue', () => {
  test('holds exactly the models the preset files price, each under the preset that prices it', () => {
    const expected = [...priced].flatMap(([vendor, ids]) => ids.map((id) => `${vendor}/${id}`)).sort();
    assert.deepEqual([...catalogue.values()].map((m) => `${m.vendor}/${m.id}`).sort(), expected);
    // Not a catalogue that is empty because the files are: every vendor that owns models has some.
    for (const [vendor, ids] of priced)
      if (!OWN_NOTHING.includes(vendor)) assert.ok(ids.length > 0, `gateway/presets/${vendor} prices no model`);
    assert.ok(catalogue.size >= 30, `only ${catalogue.size} models`);
  });

  test('keeps every model the gateway and its tests rely on, at its owner', () => {
    const expected: Record<string, string> = {
      'gpt-4o-mini': 'openai',
      'gpt-4o': 'openai',
      'gpt-4.1': 'openai',
      'gpt-4.1-mini': 'openai',
      'gpt-5': 'openai',
      'gpt-5-mini': 'openai',
      'gpt-5-nano': 'openai',
      'gpt-5.1': 'openai',
      'gpt-5.2': 'openai',
      'gpt-5.4': 'openai',
      'claude-haiku-4-5': 'anthropic',
      'claude-sonnet-4-5': 'anthropic',
      'claude-sonnet-4-6': 'anthropic',
      'claude-opus-4-5': 'anthropic',
      'claude-opus-4-6': 'anthropic',
      'claude-opus-4-7': 'anthropic',
      'claude-opus-4-8': 'anthropic',
      'gemini-2.5-flash': 'google',
      'deepseek-flash': 'deepseek',
      'gpt-oss-120b': 'groq',
      'mistral-medium-3.5': 'mistral',
      'grok-4.7': 'xai',
      'kimi-k2.6': 'moonshot',
    };
    for (const [id, vendor] of Object.entries(expected)) assert.equal(catalogue.get(id)?.vendor, vendor, id);
  });

  test('converts decimal prices to exact integer micro-USD per million', () => {
    assert.deepEqual(price('gpt-4o-mini'), [150_000, 600_000, 75_000, 0]);
    assert.deepEqual(price('gpt-4o'), [2_500_000, 10_000_000, 1_250_000, 0]);
    assert.deepEqual(price('gpt-5'), [1_250_000, 10_000_000, 125_000, 0]);
    assert.deepEqual(price('gpt-5-nano'), [50_000, 400_000, 5_000, 0]);
    assert.deepEqual(price('gpt-5.4'), [2_500_000, 15_000_000, 250_000, 0]);
    assert.deepEqual(price('claude-haiku-4-5'), [1_000_000, 5_000_000, 100_000, 1_250_000]);
    assert.deepEqual(price('claude-sonnet-4-6'), [3_000_000, 15_000_000, 300_000, 3_750_000]);
    assert.deepEqual(price('claude-opus-4-8'), [5_000_000, 25_000_000, 500_000, 6_250_000]);
    assert.deepEqual(price('deepseek-flash'), [300_000, 1_200_000, 6_000, 0]);
    assert.deepEqual(price('o3-pro'), [20_000_000, 80_000_000, 20_000_000, 0]);
    assert.deepEqual(price('gpt-oss-120b'), [150_000, 600_000, 75_000, 0]);
    assert.deepEqual(price('grok-4.7'), [2_000_000, 6_000_000, 500_000, 0]);
    assert.deepEqual(price('kimi-k2.6'), [950_000, 4_000_000, 160_000, 0]);
  });

  test('keeps modality prices only where the owner sets them', () => {
    assert.equal(catalogue.get('gemini-2.5-flash')?.prices.audioInput, 1_000_000);
    assert.equal(catalogue.get('gemini-2.5-flash-lite')?.prices.audioInput, 300_000);
    assert.equal('audioInput' in catalogue.get('gpt-4o-mini')!.prices, false);
  });

  test('carries limits and native protocols from the owner', () => {
    const m = catalogue.get('gpt-4o-mini')!;
    assert.deepEqual(
      {
        contextWindow: m.contextWindow,
        maxOutputTokens: m.maxOutputTokens,
        nativeProtocols: m.nativeProtocols,
        displayName: m.displayName,
      },
      {
        contextWindow: 128_000,
        maxOutputTokens: 16_384,
        nativeProtocols: ['openai-chat', 'openai-responses'],
        displayName: 'GPT-4o mini',
      },
    );
    assert.deepEqual(catalogue.get('o3-pro')!.nativeProtocols, ['openai-responses']);
  });

  test('lists models in preset-folder order, then file order', () => {
    const ids = [...catalogue.keys()];
    assert.equal(ids[0], 'claude-opus-4-8');
    assert.ok(ids.indexOf('claude-haiku-4-5') < ids.indexOf('gpt-5.5'), 'anthropic before openai');
    assert.ok(ids.indexOf('gpt-5.5') < ids.indexOf('gpt-4o-mini'), 'file order within openai');
  });

  test('adds no model for a preset that only references (OpenRouter) or lists none (local servers)', () => {
    const vendors = new Set([...catalogue.values()].map((m) => m.vendor));
    // Every other preset owns models, so an empty catalogue fails here too.
    assert.deepEqual([...vendors].sort(), [...presets.keys()].filter((id) => !OWN_NOTHING.includes(id)).sort());
    assert.ok(presets.get('openrouter')!.models.length > 0, 'OpenRouter references models');
  });
});

describe('owner rules', () => {
  test('each catalogue model is defined by exactly one preset, and that preset is its vendor', () => {
    const owners = new Map<string, string[]>();
    for (const p of presets.values()) {
      for (const m of p.models) if (m.definition) owners.set(m.id, [...(owners.get(m.id) ?? []), p.id]);
    }
    assert.equal(owners.size, catalogue.size);
    for (const [id, by] of owners) {
      assert.equal(by.length, 1, `${id} is defined by ${by.join(', ')}`);
      assert.equal(catalogue.get(id)?.vendor, by[0]);
    }
  });

  test('a model served by several presets is billed at its owner’s prices', () => {
    const served = new Map<string, string[]>();
    for (const p of presets.values()) for (const m of p.models) served.set(m.id, [...(served.get(m.id) ?? []), p.id]);
    assert.deepEqual(served.get('gpt-4o-mini'), ['openai', 'openrouter']);
    assert.deepEqual(served.get('claude-haiku-4-5'), ['anthropic', 'openrouter']);
    assert.deepEqual(price('gpt-4o-mini'), [150_000, 600_000, 75_000, 0]);
    assert.equal(catalogue.get('gpt-4o-mini')?.vendor, 'openai');
  });

  test('the catalogue does not depend on which preset references a model', () => {
    const withoutRouter = new Map([...presets].filter(([id]) => id !== 'openrouter'));
    const rebuilt = buildCatalogue(withoutRouter);
    assert.deepEqual(rebuilt, catalogue);
    // OpenRouter's references are still there without it: the comparison is not of two empty maps.
    for (const m of presets.get('openrouter')!.models)
      assert.ok(rebuilt.has(m.id), `${m.id}, which OpenRouter references`);
  });

  test('removing an owner leaves its references dangling, which the build refuses', () => {
    const withoutOpenai = new Map([...presets].filter(([id]) => id !== 'openai'));
    assert.throws(
      () => buildCatalogue(withoutOpenai),
      /gateway\/presets\/openrouter\/preset.json: model gpt-4o-mini has no prices and no other preset defines it/,
    );
  });
});
