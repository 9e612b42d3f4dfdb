/** Which catalogue model a key gets for a requested id: exact ids, aliases, groups. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCatalogue } from '../../gateway/catalogue/catalogue.js';
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
const key = (group: string): KeyRecord => ({ id: 'k', name: 'k', hash: 'h', last4: 'x', group, quotaMicro: null, expiresAt: null, state: 'enabled', createdAt: '' });

test('an exact id wins; otherwise the first alias that matches', () => {
  assert.equal(models.resolve('gpt-4o', key('default')).model.id, 'gpt-4o');
  assert.equal(models.resolve('claude-3-5-haiku-latest', key('default')).model.id, 'gpt-4o-mini');
  assert.equal(models.resolve('claude-whatever', key('default')).model.id, 'gpt-4o');
  assert.equal(models.resolve('claude-haiku-4-5', key('default')).model.id, 'claude-haiku-4-5', 'a catalogue id is never aliased');
  assert.throws(() => models.resolve('nope', key('default')), { status: 404, code: 'model_not_found', param: 'model' });
});

test("a key's group limits its models and sets its multiplier", () => {
  assert.deepEqual(models.forKey(key('cheap')).map((m) => m.id), ['gpt-4o-mini']);
  assert.equal(models.forKey(key('default')).length, catalogue.size);
  assert.deepEqual(models.resolve('claude-3-5-haiku-x', key('cheap')), { model: catalogue.get('gpt-4o-mini'), multiplierPpm: 500_000 });
  assert.throws(() => models.resolve('gpt-4o', key('cheap')), { status: 404, message: /not available to this key's group "cheap"/ });
});

test('a key whose group was removed falls back to the default group', () => {
  assert.equal(models.group('gone').name, 'default');
  assert.equal(models.resolve('gpt-4o', key('gone')).multiplierPpm, 1_000_000);
});
