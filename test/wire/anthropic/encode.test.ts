import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import type { CanonicalResponse, StopReason } from '../../../gateway/core/canonical.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { encodeResponse } from '../../../gateway/wire/anthropic/encode.js';
import { anthropicToolId } from '../../../gateway/wire/anthropic/to-request.js';

const ctx = { requestedModel: 'claude-sonnet-4-6', requestId: 'req_7f3a' };

/** The fields of a Messages response Tollgate writes (the SDK type also lists container, diagnostics, …, which we leave out). */
type Written = Pick<Anthropic.Message, 'id' | 'type' | 'role' | 'model' | 'stop_reason' | 'stop_sequence'> & {
  content: (
    | Omit<Anthropic.TextBlock, 'citations'>
    | Anthropic.ThinkingBlock
    | Anthropic.RedactedThinkingBlock
    | Omit<Anthropic.ToolUseBlock, 'caller'>
  )[];
  usage: Pick<
    Anthropic.Usage,
    'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'
  > & { output_tokens_details?: { thinking_tokens: number } };
};

describe('encodeResponse', () => {
  test('an answer with thinking, text and a tool call', () => {
    const res: CanonicalResponse = {
      id: 'chatcmpl-9',
      model: 'gpt-5.2',
      content: [
        { type: 'thinking', text: 'Plan.', signature: 'sig==', family: 'anthropic' },
        { type: 'redacted_thinking', data: 'opaque', family: 'anthropic' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_call', id: 'toolu_01', name: 'Read', input: {} },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
      ],
      stopReason: 'tool_use',
      usage: {
        ...emptyUsage(),
        inputTokens: 100,
        cacheReadTokens: 900,
        cacheWriteTokens: 50,
        outputTokens: 40,
        reasoningTokens: 10,
        imageInputTokens: 5,
      },
    };
    const expected: Written = {
      id: 'msg_req_7f3a',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [
        { type: 'thinking', thinking: 'Plan.', signature: 'sig==' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_01', name: 'Read', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      // input_tokens is the uncached prompt only (image input folded back in); cache figures sit beside it.
      usage: {
        input_tokens: 105,
        output_tokens: 40,
        cache_creation_input_tokens: 50,
        cache_read_input_tokens: 900,
        output_tokens_details: { thinking_tokens: 10 },
      },
    };
    assert.deepEqual(encodeResponse(res, ctx), expected);
  });

  test('keeps an upstream msg_ id, the matched stop sequence and citations', () => {
    const citations = [
      {
        type: 'char_location',
        cited_text: 'x',
        document_index: 0,
        document_title: null,
        start_char_index: 0,
        end_char_index: 1,
      },
    ];
    const out = encodeResponse(
      {
        id: 'msg_abc',
        model: 'x',
        content: [{ type: 'text', text: 'hi', citations }],
        stopReason: 'stop_sequence',
        stopSequence: 'END',
        usage: emptyUsage(),
      },
      ctx,
    );
    assert.equal(out.id, 'msg_abc');
    assert.equal(out.stop_sequence, 'END');
    assert.deepEqual(out.content, [{ type: 'text', text: 'hi', citations }]);
    assert.equal('output_tokens_details' in out.usage, false);
  });

  test('stop reasons', () => {
    const cases: [StopReason, Anthropic.StopReason][] = [
      ['end_turn', 'end_turn'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['tool_use', 'tool_use'],
      ['refusal', 'refusal'],
      ['pause_turn', 'pause_turn'],
      ['context_exceeded', 'model_context_window_exceeded'],
    ];
    for (const [canonical, wire] of cases) {
      assert.equal(
        encodeResponse({ id: 'msg_1', model: 'x', content: [], stopReason: canonical, usage: emptyUsage() }, ctx)
          .stop_reason,
        wire,
      );
    }
  });

  test('tool ids outside ^[a-zA-Z0-9_-]+$ are rewritten the same way every time', () => {
    const res = (id: string): CanonicalResponse => ({
      id: 'msg_1',
      model: 'x',
      content: [{ type: 'tool_call', id, name: 'f', input: { a: 1 } }],
      stopReason: 'tool_use',
      usage: emptyUsage(),
    });
    const idOf = (id: string): unknown => (encodeResponse(res(id), ctx).content[0] as { id: string }).id;
    const kimi = idOf('functions.bash:0');
    assert.match(String(kimi), /^[a-zA-Z0-9_-]+$/);
    assert.match(String(kimi), /^functions_bash_0_[0-9a-f]{12}$/);
    assert.equal(idOf('functions.bash:0'), kimi, 'deterministic');
    assert.notEqual(idOf('functions.bash.0'), kimi, 'ids differing only in bad characters stay distinct');
    assert.equal(idOf('call_Ab-9'), 'call_Ab-9', 'valid ids pass unchanged');
    assert.equal(anthropicToolId(String(kimi)), kimi, 'idempotent');
    assert.match(anthropicToolId(''), /^toolu_[0-9a-f]{12}$/);
  });
});
