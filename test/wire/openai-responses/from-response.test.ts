import { test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { GatewayError } from '../../../gateway/core/errors.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { fromResponse } from '../../../gateway/wire/openai-responses/from-response.js';
import { fromResponsesUsage } from '../../../gateway/wire/openai-responses/usage.js';

/** A Response as the wire has it: `output_text` is computed by the SDK, not sent. */
type Wire = Omit<OpenAI.Responses.Response, 'output_text'>;

const base: Wire = {
  id: 'resp_68f1',
  object: 'response',
  created_at: 1_760_000_000,
  status: 'completed',
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
  model: 'gpt-5-2025-08-07',
  output: [],
  parallel_tool_calls: true,
  temperature: 1,
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  usage: {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 1024, cache_write_tokens: 0 },
    output_tokens: 300,
    output_tokens_details: { reasoning_tokens: 256 },
    total_tokens: 1500,
  },
};

test('reasoning, text parts and function calls in order; call ids are call_id; usage without cached input', () => {
  const res = fromResponse({
    ...base,
    output: [
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [
          { type: 'summary_text', text: 'First.' },
          { type: 'summary_text', text: 'Second.' },
        ],
        encrypted_content: 'gAAAA-enc',
      },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [
          { type: 'output_text', text: 'Looking', annotations: [] },
          { type: 'output_text', text: ' now.', annotations: [] },
        ],
      },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_A',
        name: 'read',
        arguments: '{"path":"a.txt"}',
        status: 'completed',
      },
      { type: 'function_call', id: 'fc_2', call_id: 'call_B', name: 'ls', arguments: '', status: 'completed' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
    ],
  } satisfies Wire);
  assert.deepEqual(res, {
    id: 'resp_68f1',
    model: 'gpt-5-2025-08-07',
    content: [
      { type: 'thinking', text: 'First.\n\nSecond.', signature: 'gAAAA-enc', family: 'openai' },
      { type: 'text', text: 'Looking' },
      { type: 'text', text: ' now.' },
      { type: 'tool_call', id: 'call_A', name: 'read', input: { path: 'a.txt' } },
      { type: 'tool_call', id: 'call_B', name: 'ls', input: {} },
    ],
    stopReason: 'tool_use',
    usage: { ...emptyUsage(), inputTokens: 176, cacheReadTokens: 1024, outputTokens: 300, reasoningTokens: 256 },
  });
});

test('incomplete is max_tokens, or refusal for content_filter; a refusal part is text and a refusal', () => {
  const incomplete = (reason: 'max_output_tokens' | 'content_filter') =>
    fromResponse({ ...base, status: 'incomplete', incomplete_details: { reason } } satisfies Wire).stopReason;
  assert.equal(incomplete('max_output_tokens'), 'max_tokens');
  assert.equal(incomplete('content_filter'), 'refusal');
  const refused = fromResponse({
    ...base,
    output: [
      {
        type: 'message',
        id: 'm',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'refusal', refusal: 'I cannot help.' }],
      },
    ],
  } satisfies Wire);
  assert.deepEqual([refused.content, refused.stopReason], [[{ type: 'text', text: 'I cannot help.' }], 'refusal']);
});

test('reasoning: raw reasoning_text when there is no summary; nothing at all is dropped; bad arguments are kept raw', () => {
  const res = fromResponse({
    ...base,
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'raw thoughts' }] },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{"cut":' },
    ],
  } satisfies Wire);
  assert.deepEqual(res.content, [
    { type: 'thinking', text: 'raw thoughts', family: 'openai' },
    { type: 'tool_call', id: 'c', name: 'f', input: { _raw: '{"cut":' } },
  ]);
});

test('no usage: empty and flagged as estimated', () => {
  const { usage: _none, ...noUsage } = base;
  const res = fromResponse(noUsage);
  assert.deepEqual([res.usage, res.usageEstimated, res.stopReason], [emptyUsage(), true, 'end_turn']);
});

test('errors in the body, a failed status and malformed bodies are upstream errors', () => {
  const err = (body: unknown): GatewayError => {
    try {
      fromResponse(body);
    } catch (e) {
      assert.ok(e instanceof GatewayError);
      return e;
    }
    assert.fail('expected a throw');
  };
  const failed = err({ ...base, status: 'failed', error: { code: 'server_error', message: 'boom' } });
  assert.deepEqual([failed.kind, failed.code, failed.status], ['upstream_error', 'upstream_error', 502]);
  assert.match(failed.message, /server_error.*boom/);
  assert.equal(
    err({ ...base, status: 'failed', error: { code: 'server_is_overloaded', message: 'busy' } }).kind,
    'upstream_unavailable',
  );
  assert.equal(err({ ...base, status: 'failed' }).kind, 'upstream_error');
  assert.equal(err('nope').code, 'upstream_malformed');
  assert.equal(err({ id: 'x' }).code, 'upstream_malformed');
});

test('usage: cached tokens are inside input_tokens, reasoning inside output_tokens', () => {
  assert.deepEqual(fromResponsesUsage(base.usage), {
    ...emptyUsage(),
    inputTokens: 176,
    cacheReadTokens: 1024,
    outputTokens: 300,
    reasoningTokens: 256,
  });
  assert.deepEqual(fromResponsesUsage({ input_tokens: 10, output_tokens: 2 }), {
    ...emptyUsage(),
    inputTokens: 10,
    outputTokens: 2,
  });
  assert.deepEqual(
    fromResponsesUsage({ input_tokens: 100, input_tokens_details: { cached_tokens: 30, cache_write_tokens: 50 } }),
    { ...emptyUsage(), inputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 50 },
  );
  // A cached count larger than the prompt is carried as it came (input negative): relay/usage.ts refuses it.
  assert.deepEqual(fromResponsesUsage({ input_tokens: 10, input_tokens_details: { cached_tokens: 50 } }), {
    ...emptyUsage(),
    inputTokens: -40,
    cacheReadTokens: 50,
  });
  assert.deepEqual(fromResponsesUsage(null), emptyUsage());
});
