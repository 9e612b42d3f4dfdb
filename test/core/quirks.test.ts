import assert from 'node:assert/strict';
import { test } from 'node:test';
import { effectiveQuirks } from '../../gateway/core/quirks.js';

test("the model's vendor data applies on any line; the line's own value replaces it; null clears it", () => {
  const model = { reasoningField: 'reasoning_content' } as const;
  assert.deepEqual(effectiveQuirks(model, undefined), model);
  assert.deepEqual(effectiveQuirks(model, { maxTokensField: 'max_tokens' }), {
    reasoningField: 'reasoning_content',
    maxTokensField: 'max_tokens',
  });
  assert.deepEqual(effectiveQuirks(model, { reasoningField: 'reasoning' }), { reasoningField: 'reasoning' });
  assert.deepEqual(effectiveQuirks(model, { reasoningField: null }), {});
  assert.deepEqual(effectiveQuirks(undefined, { structuredOutput: null, maxTokensField: 'max_tokens' }), {
    maxTokensField: 'max_tokens',
  });
  assert.deepEqual(effectiveQuirks(undefined, undefined), {});
});

test('neither input is changed', () => {
  const model = { reasoningField: 'reasoning_content' } as const;
  const line = { reasoningField: null };
  effectiveQuirks(model, line);
  assert.deepEqual([model, line], [{ reasoningField: 'reasoning_content' }, { reasoningField: null }]);
});
