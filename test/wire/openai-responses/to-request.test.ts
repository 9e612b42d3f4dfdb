import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import type { CanonicalRequest } from '../../../gateway/core/canonical.js';
import { openaiResponses } from '../../../gateway/wire/openai-responses/index.js';
import {
  toRequest,
  type InputItem,
  type ResponsesRequestBody,
} from '../../../gateway/wire/openai-responses/to-request.js';

function request(over: Partial<CanonicalRequest>): CanonicalRequest {
  return {
    model: 'gpt-up',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    notes: [],
    ...over,
  };
}

/**
 * Compile-time check that the body is what the openai SDK calls a request. History items are the
 * difference: Tollgate sends assistant messages and reasoning items without an item id or status,
 * as Codex does with store:false; the SDK types them as stored output items that have both.
 */
type SdkShaped = Omit<ResponsesRequestBody, 'input' | 'stream'> & {
  input: Exclude<InputItem, { type: 'reasoning' } | { role: 'assistant' }>[];
};
const sdkShape = (b: SdkShaped): Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'> => b;

describe('toRequest: input', () => {
  test('system blocks are instructions; mid-conversation system messages are developer items in place', () => {
    const up = toRequest(
      request({
        system: [
          { type: 'text', text: 'billing header', cacheControl: { type: 'ephemeral' } },
          { type: 'text', text: 'You are helpful.' },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'system',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      }),
    );
    assert.equal(up.path, '/responses');
    assert.deepEqual(up.headers, {});
    assert.deepEqual(up.body, {
      model: 'gpt-up',
      instructions: 'billing header\n\nYou are helpful.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        {
          type: 'message',
          role: 'developer',
          content: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
      ],
      store: false,
    });
    assert.deepEqual(up.notes, []);
    sdkShape(up.body as SdkShaped);
  });

  test('user parts: images by data URI, URL or file id (detail defaults to auto), documents as input_file', () => {
    const up = toRequest(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: 'AAA' }, detail: 'high' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
              { type: 'image', source: { kind: 'file', fileId: 'file_1' } },
              { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVB' } },
              { type: 'document', source: { kind: 'file', fileId: 'file-9' }, title: 'r.pdf' },
              { type: 'document', source: { kind: 'url', url: 'https://x/d.pdf' } },
              { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'plain' } },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(up.body.input[0], {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'see' },
        { type: 'input_image', image_url: 'data:image/jpeg;base64,AAA', detail: 'high' },
        { type: 'input_image', image_url: 'https://x/y.png', detail: 'auto' },
        { type: 'input_image', file_id: 'file_1', detail: 'auto' },
        { type: 'input_file', file_data: 'data:application/pdf;base64,JVB', filename: 'document.pdf' },
        { type: 'input_file', file_id: 'file-9', filename: 'r.pdf' },
        { type: 'input_file', file_url: 'https://x/d.pdf' },
        { type: 'input_text', text: 'plain' },
      ],
    });
    assert.deepEqual(up.notes, ['openai-responses: a plain-text document was sent as a text part']);
  });

  test('an assistant turn is items in order; only OpenAI-signed thinking goes back; results follow as function_call_output', () => {
    const up = toRequest(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'plan', signature: 'gAAAA-enc', family: 'openai' },
              { type: 'thinking', text: 'claude plan', signature: 'sig', family: 'anthropic' },
              { type: 'redacted_thinking', data: 'r', family: 'anthropic' },
              { type: 'text', text: 'On ' },
              { type: 'text', text: 'it.' },
              { type: 'text', text: '' },
              { type: 'tool_call', id: 'toolu_1', name: 'read', input: { path: 'a.png' } },
              { type: 'tool_call', id: 'call_2', name: 'ls', input: {}, signature: 'g', signatureFamily: 'gemini' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'and?' },
              {
                type: 'tool_result',
                toolCallId: 'toolu_1',
                content: [
                  { type: 'text', text: 'a' },
                  { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'PNG' } },
                ],
              },
              {
                type: 'tool_result',
                toolCallId: 'call_2',
                content: [
                  { type: 'text', text: 'x' },
                  { type: 'text', text: 'y' },
                ],
                isError: true,
              },
              { type: 'tool_result', toolCallId: 'call_3', content: [] },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(up.body.input.slice(1), [
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'plan' }], encrypted_content: 'gAAAA-enc' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'On ' },
          { type: 'output_text', text: 'it.' },
        ],
      },
      { type: 'function_call', call_id: 'toolu_1', name: 'read', arguments: '{"path":"a.png"}' },
      { type: 'function_call', call_id: 'call_2', name: 'ls', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'toolu_1',
        output: [
          { type: 'input_text', text: 'a' },
          { type: 'input_image', image_url: 'data:image/png;base64,PNG', detail: 'auto' },
        ],
      },
      { type: 'function_call_output', call_id: 'call_2', output: 'Error: x\n\ny' },
      { type: 'function_call_output', call_id: 'call_3', output: '' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and?' }] },
    ]);
    // History holds OpenAI reasoning: its encrypted content must be asked for again.
    assert.deepEqual(up.body.include, ['reasoning.encrypted_content']);
    assert.deepEqual(up.notes, [
      'openai-responses: dropped a thinking block from anthropic',
      'openai-responses: dropped a redacted_thinking block from anthropic',
      'openai-responses: dropped the gemini signature of tool call call_2',
    ]);
  });
});

describe('toRequest: parameters', () => {
  test('flat tools with strict always sent, tool_choice, parallel calls, limits, sampling, format, user, stream', () => {
    const up = toRequest(
      request({
        tools: [
          { name: 'f', description: 'does f', inputSchema: { type: 'object', properties: {} }, strict: true },
          {
            name: 'g',
            inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
            cacheControl: { type: 'ephemeral' },
          },
        ],
        toolChoice: { type: 'tool', name: 'f', disableParallel: true },
        maxOutputTokens: 1000,
        temperature: 3,
        topP: 0.5,
        user: 'u-1',
        reasoningEffort: 'minimal',
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
        stream: true,
      }),
    );
    const { input, ...rest } = up.body;
    assert.equal(input.length, 1);
    assert.deepEqual(rest, {
      model: 'gpt-up',
      tools: [
        {
          type: 'function',
          name: 'f',
          description: 'does f',
          parameters: { type: 'object', properties: {} },
          strict: true,
        },
        {
          type: 'function',
          name: 'g',
          parameters: { type: 'object', properties: { a: { type: 'string' } } },
          strict: false,
        },
      ],
      tool_choice: { type: 'function', name: 'f' },
      parallel_tool_calls: false,
      max_output_tokens: 1000,
      reasoning: { effort: 'minimal' },
      include: ['reasoning.encrypted_content'],
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      temperature: 2,
      top_p: 0.5,
      user: 'u-1',
      store: false,
      stream: true,
    });
    sdkShape({ ...rest, input: [] });
  });

  test('tool_choice forms; none of them without tools', () => {
    const tools = [{ name: 'f', inputSchema: { type: 'object' } }];
    const tc = (toolChoice: CanonicalRequest['toolChoice'], withTools = true) =>
      toRequest(request({ tools: withTools ? tools : [], ...(toolChoice ? { toolChoice } : {}) })).body;
    assert.equal(tc({ type: 'none' }).tool_choice, 'none');
    assert.equal(tc({ type: 'auto' }).tool_choice, 'auto');
    assert.equal(tc({ type: 'any', disableParallel: false }).tool_choice, 'required');
    assert.equal(tc({ type: 'any', disableParallel: false }).parallel_tool_calls, undefined);
    assert.equal(tc({ type: 'any' }, false).tool_choice, undefined);
  });

  test('thinking budgets map to effort; no reasoning means no include', () => {
    const effort = (thinking: CanonicalRequest['thinking']) => toRequest(request(thinking ? { thinking } : {})).body;
    assert.deepEqual(effort({ type: 'enabled', budgetTokens: 1024 }).reasoning, { effort: 'low' });
    assert.deepEqual(effort({ type: 'enabled', budgetTokens: 8192 }).reasoning, { effort: 'medium' });
    assert.deepEqual(effort({ type: 'enabled', budgetTokens: 32000 }).reasoning, { effort: 'high' });
    for (const t of [{ type: 'adaptive' } as const, { type: 'disabled' } as const, undefined]) {
      assert.equal(effort(t).reasoning, undefined);
      assert.equal(effort(t).include, undefined);
    }
  });

  test('what Responses cannot carry is dropped with a note; tiny output limits are raised to 16', () => {
    const up = toRequest(
      request({
        stopSequences: ['END'],
        topK: 40,
        seed: 0,
        presencePenalty: 0.5,
        frequencyPenalty: 0.1,
        maxOutputTokens: 1,
        responseFormat: { type: 'json_object' },
      }),
    );
    assert.equal(up.body.max_output_tokens, 16);
    assert.deepEqual(up.body.text, { format: { type: 'json_object' } });
    assert.deepEqual(up.notes, [
      "openai-responses: max_output_tokens 1 raised to 16, the upstream's minimum",
      'openai-responses: dropped stop sequences (Responses has no such parameter)',
      'openai-responses: dropped top_k (Responses has no such parameter)',
      'openai-responses: dropped seed (Responses has no such parameter)',
      'openai-responses: dropped presence_penalty (Responses has no such parameter)',
      'openai-responses: dropped frequency_penalty (Responses has no such parameter)',
    ]);
  });

  test('the format names its id and family, and its codec leaves the canonical request alone', () => {
    const openaiResponsesProvider = openaiResponses.upstream.codec;
    assert.deepEqual([openaiResponses.id, openaiResponsesProvider.family], ['openai-responses', 'openai']);
    const req = request({ stopSequences: ['x'] });
    const up = openaiResponsesProvider.toRequest(req);
    assert.deepEqual(req.notes, []);
    assert.equal(up.notes?.length, 1);
  });
});

describe('toRequest: the prompt cache key', () => {
  test("a client's prompt_cache_key goes up, so its requests keep one OpenAI prompt cache", () => {
    assert.equal(toRequest(request({ promptCacheKey: 'sess-42' })).body.prompt_cache_key, 'sess-42');
    assert.equal(toRequest(request({})).body.prompt_cache_key, undefined);
  });
});
