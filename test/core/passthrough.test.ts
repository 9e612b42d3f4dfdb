import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withModel } from '../../gateway/core/passthrough.js';

test('withModel sets the model at its path, and leaves other data as the same string', () => {
  assert.equal(
    withModel('{"id":"x","model":"gpt-4o-2024-08-06","n":1}', ['model'], 'gpt-4o'),
    '{"id":"x","model":"gpt-4o","n":1}',
  );
  assert.equal(
    withModel('{"type":"message_start","message":{"model":"claude-x-1"}}', ['message', 'model'], 'claude-x'),
    '{"type":"message_start","message":{"model":"claude-x"}}',
  );
  const same = ' {"model": "gpt-4o"} ';
  assert.equal(withModel(same, ['model'], 'gpt-4o'), same, 'already the requested id: the bytes as they came');
  for (const data of [
    '{"type":"content_block_delta"}',
    '[DONE]',
    '{"model":',
    '{"message":null,"model":"m"}',
    '{"input":{"model":"tool arg"}}',
  ]) {
    assert.equal(
      withModel(data, data.includes('message') ? ['message', 'model'] : ['response', 'model'], 'x'),
      data,
      data,
    );
  }
});
