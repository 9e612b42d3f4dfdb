/**
 * Form bodies checked against the admin contract's own schemas (renderer/lib/field-errors.ts): each
 * problem lands at its field, once, in words for a person; a nested field and an array item are
 * named by their field; a kind TypeBox cannot check in the browser is left to the gateway.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdjustBody, CreateGroupBody, CreateLineBody } from '../../../gateway/contract/admin/schemas.js';
import { AddModelBody } from '../../../gateway/contract/admin/model-schemas.js';
import { fieldErrors } from '../../../renderer/lib/field-errors.js';

describe('field errors from the contract', () => {
  test('a valid body has none', () => {
    assert.deepEqual(fieldErrors(CreateGroupBody, { name: 'team', multiplier: '1.25', models: ['gpt-4o'] }, {}), {});
    assert.deepEqual(fieldErrors(AdjustBody, { amountMicro: -2_500_000, note: 'twice' }, {}), {});
  });

  test('each field says what is wrong with it, in the words the form gives', () => {
    const errors = fieldErrors(
      CreateGroupBody,
      { name: 'my team', multiplier: '1.2345678', models: [] },
      {
        name: { label: 'name', pattern: 'Use letters, digits and . _ @ - only.' },
        multiplier: { label: 'price multiplier', pattern: 'Enter a number such as 1.25.' },
        models: { label: 'models' },
      },
    );
    assert.deepEqual(errors, {
      name: 'Use letters, digits and . _ @ - only.',
      multiplier: 'Enter a number such as 1.25.',
      models: 'Choose at least 1 for models.',
    });
  });

  test('an empty or missing required field is asked for; bounds are said in the form’s units', () => {
    const words = {
      amountMicro: { label: 'the adjustment', bound: (n: number) => `$${n / 1e6}` },
      note: { label: 'the reason', required: 'Say why in the note.' },
    };
    assert.deepEqual(fieldErrors(AdjustBody, { amountMicro: 1, note: '' }, words), { note: 'Say why in the note.' });
    assert.deepEqual(fieldErrors(AdjustBody, { amountMicro: 1 }, words), { note: 'Say why in the note.' });
    assert.deepEqual(fieldErrors(AdjustBody, { amountMicro: 2e15, note: 'x' }, words), {
      amountMicro: 'The adjustment must be at most $1000000000.',
    });
    assert.deepEqual(fieldErrors(AdjustBody, { amountMicro: 1.5, note: 'x' }, words), {
      amountMicro: 'The adjustment must be a whole number.',
    });
  });

  test('a nested field is named with its parent; the first problem of a field wins', () => {
    const errors = fieldErrors(
      AddModelBody,
      { id: 'ok-model', contextWindow: 0, prices: { input: -1, output: 1.5 } },
      { contextWindow: { label: 'the context window' } },
    );
    assert.equal(errors.contextWindow, 'The context window must be at least 1.');
    assert.match(errors['prices.input'] ?? '', /at least 0/);
    assert.match(errors['prices.output'] ?? '', /whole number/);
    assert.equal(Object.keys(errors).length, 3);
  });

  test('a field whose schema only the gateway can check is left to the gateway', () => {
    // The upstream protocol is an enum the gateway registers; the browser cannot check that kind.
    const errors = fieldErrors(CreateLineBody, { protocol: 'not-a-format', baseUrl: '' }, {});
    assert.deepEqual(Object.keys(errors), ['baseUrl']);
  });
});
