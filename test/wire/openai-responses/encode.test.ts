import { unmark } from '../../../gateway/core/reasoning.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { CanonicalResponse } from '../../../gateway/core/canonical.js';
import { emptyUsage, type Usage } from '../../../gateway/core/usage.js';
import { makeCodec } from '../../../gateway/wire/openai-responses/client-codec.js';
import { encodeResponse, outputItems } from '../../../gateway/wire/openai-responses/encode.js';

const ctx = { requestedModel: 'my-alias', requestId: 'req_abc' };
const usage: Usage = {
  ...emptyUsage(),
  inputTokens: 20,
  cacheReadTokens: 5,
  cacheWriteTokens: 2,
  imageInputTokens: 3,
  outputTokens: 9,
  reasoningTokens: 4,
};

const answer: CanonicalResponse = {
  id: 'msg_up',
  model: 'claude-x',
  content: [
    { type: 'thinking', text: 'Plan: check.', signature: 'enc-1', family: 'openai' },
    { type: 'text', text: 'Checking ' },
    { type: 'text', text: 'both.' },
    { type: 'tool_call', id: 'toolu_a', name: 'weather', input: { city: 'Paris' } },
    { type: 'tool_call', id: 'toolu_b', name: 'search_docs', input: {} },
  ],
  stopReason: 'tool_use',
  usage,
};

/** What the official SDK makes of a JSON body: it adds output_text itself. */
async function sdkRead(body: unknown): Promise<OpenAI.Responses.Response> {
  const client = new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://gateway.test/v1',
    fetch: async () => Response.json(body),
  });
  return client.responses.create({ model: 'my-alias', input: 'hi' });
}

test('a full answer: reasoning, one message with a part per text block, function calls, usage with cache inside input', () => {
  const body = encodeResponse(answer, ctx);
  assert.equal(body.id, 'resp_abc');
  assert.equal(body.object, 'response');
  assert.equal(body.status, 'completed');
  assert.equal(body.incomplete_details, null);
  assert.equal(body.error, null);
  assert.equal(body.model, 'my-alias');
  assert.equal(typeof body.created_at, 'number');
  assert.equal('output_text' in body, false);
  assert.deepEqual(body.output, [
    {
      type: 'reasoning',
      id: 'rs_abc_0',
      summary: [{ type: 'summary_text', text: 'Plan: check.' }],
      encrypted_content: 'enc-1',
    },
    {
      type: 'message',
      id: 'msg_abc_1',
      role: 'assistant',
      status: 'completed',
      content: [
        { type: 'output_text', text: 'Checking ', annotations: [] },
        { type: 'output_text', text: 'both.', annotations: [] },
      ],
    },
    {
      type: 'function_call',
      id: 'fc_abc_2',
      call_id: 'toolu_a',
      name: 'weather',
      arguments: '{"city":"Paris"}',
      status: 'completed',
    },
    {
      type: 'function_call',
      id: 'fc_abc_3',
      call_id: 'toolu_b',
      name: 'search_docs',
      arguments: '{}',
      status: 'completed',
    },
  ]);
  assert.deepEqual(body.usage, {
    input_tokens: 30,
    input_tokens_details: { cached_tokens: 5, cache_write_tokens: 2 },
    output_tokens: 9,
    output_tokens_details: { reasoning_tokens: 4 },
    total_tokens: 39,
  });
  assert.deepEqual(outputItems(answer, ctx), body.output);
});

test('the openai SDK reads the body and computes output_text', async () => {
  const res = await sdkRead(encodeResponse(answer, ctx));
  assert.equal(res.output_text, 'Checking both.');
  assert.equal(res.usage?.input_tokens_details.cached_tokens, 5);
  const calls = res.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
  assert.deepEqual(
    calls.map((c) => [c.call_id, c.name, JSON.parse(c.arguments)]),
    [
      ['toolu_a', 'weather', { city: 'Paris' }],
      ['toolu_b', 'search_docs', {}],
    ],
  );
});

test('stop reasons: max_tokens and context_exceeded are incomplete for max_output_tokens, refusal for content_filter', () => {
  const state = (stopReason: CanonicalResponse['stopReason']) => {
    const b = encodeResponse({ ...answer, stopReason }, ctx);
    return [b.status, b.incomplete_details?.reason ?? null];
  };
  assert.deepEqual(state('max_tokens'), ['incomplete', 'max_output_tokens']);
  assert.deepEqual(state('context_exceeded'), ['incomplete', 'max_output_tokens']);
  assert.deepEqual(state('refusal'), ['incomplete', 'content_filter']);
  for (const r of ['end_turn', 'stop_sequence', 'pause_turn'] as const) assert.deepEqual(state(r), ['completed', null]);
});

test("foreign reasoning keeps its text, with its proof under Tollgate's mark; a call signature rides before its call; images are dropped", () => {
  const res: CanonicalResponse = {
    ...answer,
    content: [
      { type: 'thinking', text: 'claude thoughts', signature: 'anthropic-sig', family: 'anthropic' },
      { type: 'thinking', text: '', signature: 'gemini-sig', family: 'gemini' },
      { type: 'redacted_thinking', data: 'xx', family: 'anthropic' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/x.png' } },
      { type: 'thinking', text: '', family: 'openai' },
      { type: 'text', text: 'hi' },
      { type: 'tool_call', id: 'call_9', name: 'f', input: {}, signature: 'gsig', signatureFamily: 'gemini' },
    ],
    stopReason: 'tool_use',
  };
  const items = outputItems(res, ctx);
  assert.deepEqual(
    items.map((i) => [i.type, i.id, i.type === 'reasoning' ? unmark(i.encrypted_content) : undefined]),
    [
      ['reasoning', 'rs_abc_0', { kind: 'thinking', family: 'anthropic', signature: 'anthropic-sig' }],
      ['reasoning', 'rs_abc_1', { kind: 'thinking', family: 'gemini', signature: 'gemini-sig' }],
      ['reasoning', 'rs_abc_2', { kind: 'redacted', family: 'anthropic', data: 'xx' }],
      ['message', 'msg_abc_3', undefined],
      ['reasoning', 'rs_abc_4', { kind: 'call', family: 'gemini', callId: 'call_9', signature: 'gsig' }],
      ['function_call', 'fc_abc_5', undefined],
    ],
  );
  assert.deepEqual(items[0], {
    type: 'reasoning',
    id: 'rs_abc_0',
    summary: [{ type: 'summary_text', text: 'claude thoughts' }],
    encrypted_content: (items[0] as { encrypted_content: string }).encrypted_content,
  });
});

test('makeCodec puts Codex namespaces back on calls and echoes store and previous_response_id', () => {
  const plain = makeCodec({}).encodeResponse(answer, ctx) as ReturnType<typeof encodeResponse>;
  assert.deepEqual([plain.store, plain.previous_response_id], [false, null]);
  const per = makeCodec({
    namespaces: new Map([['search_docs', 'mcp__docs__']]),
    store: true,
    previousResponseId: 'resp_prev',
  });
  const body = per.encodeResponse(answer, ctx) as ReturnType<typeof encodeResponse>;
  assert.deepEqual([body.store, body.previous_response_id], [true, 'resp_prev']);
  assert.deepEqual(
    body.output.flatMap((o) => (o.type === 'function_call' ? [[o.name, o.namespace]] : [])),
    [
      ['weather', undefined],
      ['search_docs', 'mcp__docs__'],
    ],
  );
});

test('response and item ids keep only [A-Za-z0-9_-] of the request id, less its req_ prefix', () => {
  const ids = (requestId: string): string[] => {
    const body = encodeResponse(answer, { requestedModel: 'm', requestId });
    return [body.id, body.output[0]!.id];
  };
  assert.deepEqual(ids('req_0192abcdef12345678901234567890ab'), [
    'resp_0192abcdef12345678901234567890ab',
    'rs_0192abcdef12345678901234567890ab_0',
  ]);
  assert.deepEqual(ids('req_a.b/c:d'), ['resp_abcd', 'rs_abcd_0']);
  assert.deepEqual(ids('client-id_1'), ['resp_client-id_1', 'rs_client-id_1_0']);
  assert.deepEqual(ids('req_req_x'), ['resp_req_x', 'rs_req_x_0']);
});
