/** Which catalogue model a key gets for a requested id: exact ids, aliases, groups. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildCatalogue, loadCatalogue, loadPresets, retiredModels } from '../../gateway/catalogue/catalogue.js';
import { Models } from '../../gateway/catalogue/models.js';
import type { ConfigData, KeyRecord } from '../../gateway/store/types.js';

const catalogue = loadCatalogue();
const config: { data: ConfigData } = {
  data: {
    version: 1,
    keys: [],
    lines: [],
    groups: [
      { name: 'default', multiplier: '1', models: ['*'] },
      { name: 'cheap', multiplier: '0.5', models: ['gpt-4o-mini'] },
    ],
    aliases: [
      { pattern: 'claude-3-5-haiku-*', model: 'gpt-4o-mini' },
      { pattern: 'claude-*', model: 'gpt-4o' },
    ],
  },
};
const models = new Models(catalogue, config);
const key = (group: string): KeyRecord => ({
  id: 'k',
  name: 'k',
  hash: 'h',
  last4: 'x',
  group,
  quotaMicro: null,
  expiresAt: null,
  state: 'enabled',
  createdAt: '',
});

test('an exact id wins; otherwise the first alias that matches', () => {
  assert.equal(models.resolve('gpt-4o', key('default')).model.id, 'gpt-4o');
  assert.equal(models.resolve('claude-3-5-haiku-latest', key('default')).model.id, 'gpt-4o-mini');
  assert.equal(models.resolve('claude-whatever', key('default')).model.id, 'gpt-4o');
  assert.equal(
    models.resolve('claude-haiku-4-5', key('default')).model.id,
    'claude-haiku-4-5',
    'a catalogue id is never aliased',
  );
  assert.throws(() => models.resolve('nope', key('default')), { status: 404, code: 'model_not_found', param: 'model' });
});

test("a key's group limits its models and sets its multiplier", () => {
  assert.deepEqual(
    models.forKey(key('cheap')).map((m) => m.id),
    ['gpt-4o-mini'],
  );
  assert.equal(models.forKey(key('default')).length, catalogue.size);
  assert.deepEqual(models.resolve('claude-3-5-haiku-x', key('cheap')), {
    model: catalogue.get('gpt-4o-mini'),
    multiplierPpm: 500_000,
  });
  assert.throws(() => models.resolve('gpt-4o', key('cheap')), {
    status: 404,
    message: /not available to this key's group "cheap"/,
  });
});

test('a key whose group was removed falls back to the default group', () => {
  assert.equal(models.group('gone').name, 'default');
  assert.equal(models.resolve('gpt-4o', key('gone')).multiplierPpm, 1_000_000);
});

describe('retired models', () => {
  const all = loadPresets();
  const built = buildCatalogue(all);
  const retired = retiredModels(all, built);
  const data: ConfigData = { ...config.data, aliases: [{ pattern: 'o4-mini', model: 'gpt-5.4' }] };
  const at = (day: string) => new Models(built, { data }, { retired, now: () => Date.parse(`${day}T12:00:00Z`) });

  test('a model is served until its shutdown day; from that day it is refused, naming its replacement', () => {
    assert.equal(at('2026-12-10').resolve('gpt-5', key('default')).model.id, 'gpt-5');
    assert.throws(() => at('2026-12-11').resolve('gpt-5', key('default')), {
      status: 404,
      code: 'model_retired',
      param: 'model',
      message:
        'The model "gpt-5" was retired on 2026-12-11: its vendor no longer serves it. Use "gpt-5.5" instead, or steer requests for it there with "tollgate aliases add gpt-5 gpt-5.5".',
    });
  });

  test('an id the presets list as shut down is refused with what to use; an alias catches it first', () => {
    assert.throws(() => at('2026-11-24').resolve('claude-opus-4-1', key('default')), {
      code: 'model_retired',
      message: /"claude-opus-4-1" was retired: .* Use "claude-opus-4-8" instead/,
    });
    assert.throws(() => at('2026-11-24').resolve('grok-3', key('default')), {
      message: /retired on 2026-05-15: .* Use "grok-4.3"/,
    });
    assert.equal(at('2026-11-24').resolve('o4-mini', key('default')).model.id, 'gpt-5.4');
  });

  test('an alias catches a retired catalogue model too, and an alias to a retired model says so', () => {
    const steered = new Models(
      built,
      {
        data: {
          ...data,
          aliases: [
            { pattern: 'gpt-5', model: 'gpt-5.4' },
            { pattern: 'old-*', model: 'o3' },
          ],
        },
      },
      { retired, now: () => Date.parse('2027-01-01') },
    );
    assert.equal(steered.resolve('gpt-5', key('default')).model.id, 'gpt-5.4');
    assert.throws(() => steered.resolve('old-thing', key('default')), {
      code: 'model_retired',
      message: /"o3" \(the alias for "old-thing" points at it\) was retired on 2026-12-11/,
    });
  });

  test("retired models are not in a key's model list; retiring ones still are", () => {
    const ids = (day: string) =>
      at(day)
        .forKey(key('default'))
        .map((m) => m.id);
    assert.ok(ids('2026-11-24').includes('gpt-5') && ids('2026-11-24').includes('claude-sonnet-4-5'));
    assert.ok(!ids('2026-12-11').includes('gpt-5') && !ids('2026-12-11').includes('claude-sonnet-4-5'));
    assert.equal(
      ids('2026-12-11').length,
      built.size - 9,
      'claude-sonnet-4-5 (two ids), gemini-2.5-pro, -flash, gpt-5, -mini, -nano, o3, o3-pro; gemini-2.5-flash-lite stays',
    );
  });
});
