import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { Value } from '@sinclair/typebox/value';
import { GatewayError } from '../../../gateway/core/errors.js';
import { decodeRequest, inputItems, toolNamespaces } from '../../../gateway/wire/openai-responses/decode.js';
import { ResponsesRequest } from '../../../gateway/wire/openai-responses/schema.js';
import { codexBody } from './codex-fixture.js';

type Params = OpenAI.Responses.ResponseCreateParams;
type Item = OpenAI.Responses.ResponseInputItem;

function rejects(body: unknown, expected: { param: string; code?: string; message?: RegExp }): void {
  assert.throws(
    () => decodeRequest(body),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.status, 400);
      assert.equal(err.param, expected.param);
      if (expected.code) assert.equal(err.code, expected.code);
      if (expected.message) assert.match(err.message, expected.message);
      return true;
    },
  );
}

const PNG = 'iVBORw0KGgo=';
const items = (...input: Item[]): Params => ({ model: 'm', input });

describe('decodeRequest: a Codex request', () => {
  test('developer items are the system prompt; the earlier turn comes back as thinking, call and result', () => {
    const req = decodeRequest(codexBody);
    assert.equal(req.model, 'gpt-5-codex');
    assert.equal(req.stream, true);
    assert.deepEqual(
      req.system.map((b) => b.text.split('\n')[0]),
      ['<permissions instructions>', 'You are Codex, a coding agent.'],
    );
    assert.deepEqual(req.messages, [
      {
        role: 'user',
        content: [{ type: 'text', text: '<environment_context>\n  <cwd>/work/demo</cwd>\n</environment_context>' }],
      },
      { role: 'user', content: [{ type: 'text', text: 'What files are here?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: '**Listing the directory**', signature: 'gAAAAABo8-encrypted', family: 'openai' },
          { type: 'tool_call', id: 'call_Xq1', name: 'exec_command', input: { cmd: 'ls -1', yield_time_ms: 1000 } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'call_Xq1',
            name: 'exec_command',
            content: [{ type: 'text', text: 'Chunk ID: 1\nOutput:\nREADME.md\nsrc\n' }],
          },
        ],
      },
    ]);
    assert.deepEqual(
      req.tools.map((t) => [t.name, t.strict]),
      [
        ['exec_command', false],
        ['write_stdin', false],
        ['search_docs', undefined],
      ],
    );
    assert.deepEqual(req.toolChoice, { type: 'auto' });
    // reasoning.summary, store, include, prompt_cache_key and client_metadata have no canonical place and need none.
    assert.equal(req.reasoningEffort, undefined);
    assert.deepEqual(req.notes, [
      'openai-responses: flattened namespace tool "mcp__docs__" into its function tools',
      'openai-responses: dropped a "web_search" tool: only function tools translate',
    ]);
    assert.deepEqual([...toolNamespaces(codexBody)], [['search_docs', 'mcp__docs__']]);
  });

  test('the schema Fastify validates with accepts it, and refuses what decode cannot start from', () => {
    assert.equal(Value.Check(ResponsesRequest, codexBody), true);
    assert.equal(
      Value.Check(ResponsesRequest, { model: 'm', input: 'hi', instructions: null, max_output_tokens: null }),
      true,
    );
    assert.equal(Value.Check(ResponsesRequest, { input: 'hi' }), false);
    assert.equal(Value.Check(ResponsesRequest, { model: 'm', input: 42 }), false);
    assert.equal(Value.Check(ResponsesRequest, { model: 'm', tools: [{ name: 'no type' }] }), false);
  });
});

describe('decodeRequest: input items', () => {
  test('a string input is one user message; instructions come first in system', () => {
    const req = decodeRequest({ model: 'm', input: 'hello', instructions: 'Be brief.' });
    assert.deepEqual(req.system, [{ type: 'text', text: 'Be brief.' }]);
    assert.deepEqual(req.messages, [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    assert.deepEqual(inputItems({ input: 'hello' }), [{ type: 'message', role: 'user', content: 'hello' }]);
    assert.deepEqual(inputItems({}), []);
    assert.equal(inputItems(codexBody).length, 7);
  });

  test('messages without a type; leading system/developer items join system, later ones stay in place', () => {
    const req = decodeRequest(
      items(
        { role: 'system', content: 'A' },
        { role: 'developer', content: [{ type: 'input_text', text: 'B' }] },
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'Now in French.' },
      ),
    );
    assert.deepEqual(req.system, [
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B' },
    ]);
    assert.deepEqual(req.messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'Now in French.' }] },
    ]);
  });

  test('user parts: text, images by data URI, URL and file id with detail, files', () => {
    const content: OpenAI.Responses.ResponseInputMessageContentList = [
      { type: 'input_text', text: 'look' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'high' },
      { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
      { type: 'input_image', file_id: 'file-img', detail: 'original' },
      { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
      { type: 'input_file', file_id: 'file-doc' },
      { type: 'input_file', file_url: 'https://example.com/b.pdf' },
    ];
    assert.deepEqual(decodeRequest(items({ role: 'user', content })).messages[0]!.content, [
      { type: 'text', text: 'look' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG }, detail: 'high' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, detail: 'auto' },
      { type: 'image', source: { kind: 'file', fileId: 'file-img' } },
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' },
      { type: 'document', source: { kind: 'file', fileId: 'file-doc' } },
      { type: 'document', source: { kind: 'url', url: 'https://example.com/b.pdf' } },
    ]);
  });

  test('assistant text, refusal, reasoning and function calls in a row are one assistant turn', () => {
    const req = decodeRequest(
      items(
        { role: 'user', content: 'weather?' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [
            { type: 'summary_text', text: 'Two' },
            { type: 'summary_text', text: 'parts' },
          ],
        },
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [
            { type: 'output_text', text: 'Checking.', annotations: [] },
            { type: 'refusal', refusal: 'Not that.' },
          ],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'now', arguments: '' },
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'enc' },
      ),
    );
    assert.deepEqual(req.messages[1], {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'Two\n\nparts', family: 'openai' },
        { type: 'text', text: 'Checking.' },
        { type: 'text', text: 'Not that.' },
        { type: 'tool_call', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_call', id: 'call_2', name: 'now', input: {} },
        { type: 'thinking', text: '', signature: 'enc', family: 'openai' },
      ],
    });
    assert.equal(req.messages.length, 2);
  });

  test('function_call_output items: one user message, string or parts, named after their call', () => {
    const req = decodeRequest(
      items(
        { role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{}' },
        { type: 'function_call', call_id: 'c2', name: 'shot', arguments: '{}' },
        { type: 'function_call_output', id: 'fco_1', call_id: 'c1', output: 'file a' },
        {
          type: 'function_call_output',
          call_id: 'c2',
          output: [
            { type: 'input_text', text: 'see' },
            { type: 'input_image', image_url: 'https://example.com/s.png', detail: 'low' },
          ],
        },
        { type: 'function_call_output', call_id: 'unknown', output: '' },
        { role: 'user', content: 'thanks' },
      ),
    );
    assert.deepEqual(req.messages.slice(2), [
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolCallId: 'c1', name: 'read', content: [{ type: 'text', text: 'file a' }] },
          {
            type: 'tool_result',
            toolCallId: 'c2',
            name: 'shot',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/s.png' }, detail: 'low' },
            ],
          },
          { type: 'tool_result', toolCallId: 'unknown', content: [] },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
  });

  test('empty reasoning and item types only OpenAI can run are dropped with a note', () => {
    const req = decodeRequest({
      model: 'm',
      input: [
        { role: 'user', content: 'hi' },
        { type: 'reasoning', id: 'rs_0', summary: [] },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        {
          type: 'local_shell_call',
          id: 'lsc_1',
          call_id: 'c',
          status: 'completed',
          action: { type: 'exec', command: ['ls'], env: {} },
        },
        { type: 'custom_tool_call', call_id: 'c9', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'item_reference', id: 'msg_old' },
      ],
    });
    assert.equal(req.messages.length, 1);
    assert.equal(req.notes.length, 5);
    assert.match(req.notes[0]!, /reasoning item with neither/);
    assert.match(req.notes[1]!, /"web_search_call"/);
  });

  test('malformed items are 400s naming the field', () => {
    rejects(items({ type: 'function_call', call_id: 'a', name: 'f', arguments: '{"a":' }), {
      param: 'input[0].arguments',
    });
    rejects(items({ type: 'function_call', call_id: 'a', name: 'f', arguments: '[1]' }), {
      param: 'input[0].arguments',
    });
    rejects(
      { model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
      { param: 'input[0].call_id' },
    );
    rejects(
      { model: 'm', input: [{ type: 'function_call_output', call_id: 'a', output: 7 }] },
      { param: 'input[0].output', code: 'invalid_type' },
    );
    rejects({ model: 'm', input: [{ role: 'robot', content: 'x' }] }, { param: 'input[0].role' });
    rejects(
      {
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'wav' } }] }],
      },
      { param: 'input[0].content[0]', code: 'unsupported_value' },
    );
    rejects(
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', detail: 'auto' }] }] },
      { param: 'input[0].content[0]' },
    );
    rejects(
      { model: 'm', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'x' }] }] },
      { param: 'input[0].content[0]' },
    );
    rejects({ model: 'm', input: 5 }, { param: 'input', code: 'invalid_type' });
    rejects({ input: 'x' }, { param: 'model' });
    rejects({ model: 'm', instructions: ['x'] }, { param: 'instructions' });
  });
});

describe('decodeRequest: parameters', () => {
  const base = { model: 'gpt-x', input: 'hi' };

  test('flat function tools; namespaces flattened; hosted tools and duplicates dropped with notes', () => {
    const req = decodeRequest({
      ...base,
      tools: [
        {
          type: 'function',
          name: 'f',
          description: 'does f',
          parameters: { type: 'object', properties: { a: { type: 'string' } } },
          strict: true,
        },
        { type: 'function', name: 'g', parameters: null, strict: null },
        {
          type: 'namespace',
          name: 'ns',
          description: 'd',
          tools: [
            { type: 'function', name: 'f' },
            { type: 'custom', name: 'grammar' },
          ],
        },
        { type: 'file_search', vector_store_ids: ['vs'] },
        { type: 'local_shell' },
      ],
    });
    assert.deepEqual(req.tools, [
      {
        name: 'f',
        description: 'does f',
        inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
        strict: true,
      },
      { name: 'g', inputSchema: { type: 'object', properties: {} } },
    ]);
    assert.equal(req.notes.length, 5);
    assert.ok(req.notes.some((n) => /second tool named "f"/.test(n)));
  });

  test('tool_choice forms and parallel_tool_calls:false', () => {
    const tc = (tool_choice: unknown, parallel_tool_calls?: boolean) =>
      decodeRequest({ ...base, tool_choice, parallel_tool_calls });
    assert.deepEqual(tc('none', false).toolChoice, { type: 'none' });
    assert.deepEqual(tc('auto').toolChoice, { type: 'auto' });
    assert.deepEqual(tc('required').toolChoice, { type: 'any' });
    assert.deepEqual(tc({ type: 'function', name: 'f' }, false).toolChoice, {
      type: 'tool',
      name: 'f',
      disableParallel: true,
    });
    assert.deepEqual(tc(undefined, false).toolChoice, { type: 'auto', disableParallel: true });
    assert.deepEqual(tc({ type: 'allowed_tools', mode: 'required', tools: [] }).toolChoice, { type: 'any' });
    const hosted = tc({ type: 'web_search_preview' });
    assert.equal(hosted.toolChoice, undefined);
    assert.equal(hosted.notes.length, 1);
    rejects({ ...base, tool_choice: 'sometimes' }, { param: 'tool_choice' });
  });

  test('limits, sampling, user, effort and text.format', () => {
    const body: Params = {
      ...base,
      stream: true,
      max_output_tokens: 300,
      temperature: 0.3,
      top_p: 0.9,
      user: 'u-1',
      metadata: { a: 'b' },
      reasoning: { effort: 'low', summary: 'detailed' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      store: true,
      previous_response_id: 'resp_old',
    };
    const { model, messages, system, tools, notes, ...rest } = decodeRequest(body);
    assert.deepEqual(rest, {
      stream: true,
      maxOutputTokens: 300,
      temperature: 0.3,
      topP: 0.9,
      user: 'u-1',
      reasoningEffort: 'low',
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
    });
    assert.deepEqual([model, messages.length, system, tools, notes], ['gpt-x', 1, [], [], []]);
    assert.deepEqual(decodeRequest({ ...base, text: { format: { type: 'json_object' } } }).responseFormat, {
      type: 'json_object',
    });
    assert.deepEqual(decodeRequest({ ...base, reasoning: { effort: 'none' } }).thinking, { type: 'disabled' });
    assert.equal(decodeRequest({ ...base, reasoning: { effort: 'xhigh' } }).reasoningEffort, 'high');
    assert.equal(decodeRequest({ ...base, safety_identifier: 'sid' }).user, 'sid');
    rejects({ ...base, reasoning: { effort: 'extreme' } }, { param: 'reasoning.effort' });
    rejects({ ...base, max_output_tokens: 'many' }, { param: 'max_output_tokens' });
  });

  test('fields with no canonical place are noted, not refused', () => {
    const req = decodeRequest({ ...base, background: true, top_logprobs: 0, text: { verbosity: 'low' } });
    assert.deepEqual(req.notes, [
      'openai-responses: text.verbosity is not carried to this upstream',
      'openai-responses: background is not carried to this upstream',
    ]);
    assert.equal(req.uncarriedOutputs, undefined, 'top_logprobs 0 asks for nothing');
  });

  test('asked-for log probabilities are marked for refusal on the translated path', () => {
    assert.deepEqual(decodeRequest({ ...base, top_logprobs: 5 }).uncarriedOutputs, [
      { param: 'top_logprobs', what: 'log probabilities' },
    ]);
    assert.deepEqual(decodeRequest({ ...base, include: ['message.output_text.logprobs'] }).uncarriedOutputs, [
      { param: 'include', what: 'log probabilities' },
    ]);
  });
});
