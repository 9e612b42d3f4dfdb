/** OpenAI's model list as an upstream answers it, with OpenRouter's extra fields where a server adds them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openaiModelList } from '../../../gateway/wire/openai-chat/models.js';

test("OpenAI's own list: ids only", () => {
  assert.deepEqual(
    openaiModelList.list({
      object: 'list',
      data: [{ id: 'gpt-5.4', object: 'model', created: 1, owned_by: 'openai' }, { id: 'o3' }],
    }),
    [{ id: 'gpt-5.4' }, { id: 'o3' }],
  );
});

test("OpenRouter's entries: name, context, the top provider's output cap, and per-token prices as written", () => {
  const body = {
    data: [
      {
        id: 'anthropic/claude-opus-4.7',
        name: 'Anthropic: Claude Opus 4.7',
        context_length: 1_000_000,
        pricing: {
          prompt: '0.000005',
          completion: '0.000025',
          web_search: '0.01',
          input_cache_read: '0.0000005',
          input_cache_write: '0.00000625',
        },
        top_provider: { context_length: 1_000_000, max_completion_tokens: 128_000, is_moderated: false },
      },
      {
        id: 'openrouter/auto',
        name: 'Auto Router',
        context_length: 2_000_000,
        pricing: { prompt: '-1', completion: '-1' },
        top_provider: { max_completion_tokens: null },
      },
      { id: 'x/odd', pricing: { prompt: 3, completion: 'free' }, context_length: -5 },
    ],
  };
  assert.deepEqual(openaiModelList.list(body), [
    {
      id: 'anthropic/claude-opus-4.7',
      displayName: 'Anthropic: Claude Opus 4.7',
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
      perToken: { input: '0.000005', output: '0.000025', cacheRead: '0.0000005', cacheWrite: '0.00000625' },
    },
    { id: 'openrouter/auto', displayName: 'Auto Router', contextWindow: 2_000_000 },
    { id: 'x/odd' },
  ]);
});

test('a body that is no list gives no models, and entries without an id are passed over', () => {
  assert.deepEqual(openaiModelList.list(null), []);
  assert.deepEqual(openaiModelList.list({ data: 'x' }), []);
  assert.deepEqual(openaiModelList.list({ data: [{ name: 'no id' }, 7, { id: 'a' }] }), [{ id: 'a' }]);
});
