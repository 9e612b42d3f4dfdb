import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import type { StopReason } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { fromResponse } from '../../../gateway/wire/anthropic/from-response.js';
import { fromAnthropicUsage, mergeAnthropicUsage } from '../../../gateway/wire/anthropic/usage.js';

const usage: Anthropic.Usage = {
  input_tokens: 12,
  output_tokens: 340,
  cache_creation_input_tokens: 2_000,
  cache_read_input_tokens: 48_000,
  cache_creation: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 0 },
  inference_geo: null,
  output_tokens_details: { thinking_tokens: 120 },
  server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 },
  service_tier: 'standard',
  speed: null,
};

const message = (over: Partial<Anthropic.Message> = {}): Anthropic.Message => ({
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model: 'claude-opus-4-8',
  container: null,
  diagnostics: null,
  stop_details: null,
  content: [],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage,
  ...over,
});

describe('fromResponse', () => {
  test('a response with thinking, server-tool blocks, cited text and a tool call', () => {
    const citation: Anthropic.TextCitation = {
      type: 'web_search_result_location',
      cited_text: 'Paris',
      encrypted_index: 'Eo8B',
      title: 'Paris',
      url: 'https://x',
    };
    const body = message({
      content: [
        { type: 'thinking', thinking: 'Search first.', signature: 'EqQBsig==' },
        { type: 'redacted_thinking', data: 'EmwKAhgB' },
        {
          type: 'server_tool_use',
          id: 'srvtoolu_1',
          name: 'web_search',
          input: { query: 'capital of France' },
          caller: { type: 'direct' },
        },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [], caller: { type: 'direct' } },
        { type: 'text', text: 'It is Paris.', citations: [citation] },
        { type: 'text', text: ' Reading notes.', citations: null },
        { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/n.md' }, caller: { type: 'direct' } },
      ],
      stop_reason: 'tool_use',
    });
    assert.deepEqual(fromResponse(JSON.parse(JSON.stringify(body))), {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      model: 'claude-opus-4-8',
      content: [
        { type: 'thinking', text: 'Search first.', signature: 'EqQBsig==', family: 'anthropic' },
        { type: 'redacted_thinking', data: 'EmwKAhgB', family: 'anthropic' },
        { type: 'text', text: 'It is Paris.', citations: [citation] },
        { type: 'text', text: ' Reading notes.' },
        { type: 'tool_call', id: 'toolu_01', name: 'Read', input: { file_path: '/n.md' } },
      ],
      stopReason: 'tool_use',
      // Nothing is subtracted: Anthropic's input_tokens already excludes cache reads and writes.
      usage: {
        ...emptyUsage(),
        inputTokens: 12,
        cacheReadTokens: 48_000,
        cacheWriteTokens: 2_000,
        outputTokens: 340,
        reasoningTokens: 120,
      },
    });
  });

  test('stop reasons and the matched stop sequence', () => {
    const cases: [Anthropic.StopReason | null, StopReason][] = [
      ['end_turn', 'end_turn'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['tool_use', 'tool_use'],
      ['pause_turn', 'pause_turn'],
      ['refusal', 'refusal'],
      ['model_context_window_exceeded', 'context_exceeded'],
      [null, 'end_turn'],
    ];
    for (const [wire, canonical] of cases)
      assert.equal(fromResponse(message({ stop_reason: wire })).stopReason, canonical);
    assert.equal(fromResponse(message({ stop_reason: 'stop_sequence', stop_sequence: '###' })).stopSequence, '###');
    assert.equal('stopSequence' in fromResponse(message()), false);
  });

  test('a tool call without input gets {}', () => {
    const res = fromResponse({ ...message(), content: [{ type: 'tool_use', id: 'toolu_1', name: 'Now' }] });
    assert.deepEqual(res.content, [{ type: 'tool_call', id: 'toolu_1', name: 'Now', input: {} }]);
  });

  test('an error body or a non-message body is an upstream error', () => {
    const err: Anthropic.ErrorResponse = {
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: null,
    };
    assert.throws(
      () => fromResponse(err),
      (e: unknown) => e instanceof GatewayError && e.status === 502 && /overloaded_error.*Overloaded/.test(e.message),
    );
    assert.throws(
      () => fromResponse({ choices: [] }),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_malformed',
    );
    assert.throws(
      () => fromResponse('text'),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_malformed',
    );
  });
});

describe('fromAnthropicUsage', () => {
  test('null and missing fields count as 0; nonsense is carried as it came, for relay/usage.ts to refuse', () => {
    const delta: Anthropic.MessageDeltaUsage = {
      input_tokens: null,
      output_tokens: 5,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      output_tokens_details: null,
      server_tool_use: null,
    };
    assert.deepEqual(fromAnthropicUsage(delta), { ...emptyUsage(), outputTokens: 5 });
    assert.deepEqual(fromAnthropicUsage(undefined), emptyUsage());
    const junk = fromAnthropicUsage({ input_tokens: '7', output_tokens: -1 });
    assert.ok(Number.isNaN(junk.inputTokens), 'a string is no count');
    assert.equal(junk.outputTokens, -1);
  });

  test('1-hour cache writes go to their own bucket; a later total keeps the split message_start gave', () => {
    const start = fromAnthropicUsage({
      input_tokens: 10,
      cache_creation_input_tokens: 700,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 500 },
      output_tokens: 1,
    });
    assert.deepEqual(start, {
      ...emptyUsage(),
      inputTokens: 10,
      cacheWriteTokens: 200,
      cacheWrite1hTokens: 500,
      outputTokens: 1,
    });
    assert.deepEqual(mergeAnthropicUsage(start, { cache_creation_input_tokens: 700, output_tokens: 40 }), {
      ...start,
      outputTokens: 40,
    });
    // Without the total, the split is the total; without the split, every write is a 5-minute one.
    assert.equal(
      fromAnthropicUsage({ cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 4 } })
        .cacheWriteTokens,
      3,
    );
    assert.deepEqual(fromAnthropicUsage({ cache_creation_input_tokens: 9 }), { ...emptyUsage(), cacheWriteTokens: 9 });
    // A 1-hour share larger than the total leaves a negative 5-minute share, which relay/usage.ts refuses.
    assert.equal(
      fromAnthropicUsage({ cache_creation_input_tokens: 1, cache_creation: { ephemeral_1h_input_tokens: 5 } })
        .cacheWriteTokens,
      -4,
    );
  });
});
