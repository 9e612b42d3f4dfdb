import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { Value } from '@sinclair/typebox/value';
import { GatewayError } from '../../../gateway/core/errors.js';
import { decodeRequest } from '../../../gateway/wire/anthropic/decode.js';
import { toRequest } from '../../../gateway/wire/anthropic/to-request.js';
import { CountTokensRequest, MessagesRequest } from '../../../gateway/wire/anthropic/schema.js';
import { claudeCodeBody, claudeCodeCanonical, type Sampling } from './claude-code-request.js';
function rejects(body: unknown, param: string): void {
  assert.throws(
    () => decodeRequest(body),
    (err: unknown) => err instanceof GatewayError && err.status === 400 && err.param === param,
  );
}

describe('decodeRequest', () => {
  test('a Claude Code request decodes without losing anything canonical can carry', () => {
    assert.deepEqual(decodeRequest(claudeCodeBody), claudeCodeCanonical);
  });

  test('a Claude Code request survives toRequest and a second decode; only the mid-conversation system message changes form', () => {
    const wire = toRequest(decodeRequest(claudeCodeBody)).body;
    const count = (v: unknown): number => JSON.stringify(v).split('"cache_control"').length - 1;
    assert.equal(count(wire), count(claudeCodeBody), 'every cache breakpoint is kept');
    const expected = structuredClone(claudeCodeCanonical);
    // The system message becomes <system-reminder> user text, merged into the tool_result turn before it.
    expected.messages.splice(3, 1);
    expected.messages[2]?.content.push({
      type: 'text',
      text: '<system-reminder>\nThe user switched the output style to Explanatory.\n</system-reminder>',
    });
    assert.deepEqual(decodeRequest(JSON.parse(JSON.stringify(wire))), { ...expected, notes: [] });
  });

  test('string system and string content become text blocks; optional fields stay absent', () => {
    const body: Anthropic.MessageCreateParams = {
      model: 'm',
      max_tokens: 10,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
    };
    assert.deepEqual(decodeRequest(body), {
      model: 'm',
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      tools: [],
      maxOutputTokens: 10,
      stream: false,
      notes: [],
    });
  });

  test('leading role:system messages join system; later ones stay in place as system messages', () => {
    const body: Anthropic.MessageCreateParams = {
      model: 'm',
      max_tokens: 10,
      system: 'A',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }] },
        { role: 'system', content: 'C' },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'D' },
      ],
    };
    const req = decodeRequest(body);
    assert.deepEqual(req.system, [
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B', cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: 'C' },
    ]);
    assert.deepEqual(req.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'D' }] },
    ]);
  });

  test('images and documents in every source form', () => {
    const content: Anthropic.ContentBlockParam[] = [
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
      { type: 'image', source: { type: 'file', file_id: 'file_011' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'Spec' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain' } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
      {
        type: 'document',
        source: {
          type: 'content',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
      },
    ];
    const req = decodeRequest({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] });
    assert.deepEqual(req.messages[0]?.content, [
      {
        type: 'image',
        source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        cacheControl: { type: 'ephemeral' },
      },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
      { type: 'image', source: { kind: 'file', fileId: 'file_011' } },
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, title: 'Spec' },
      { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'plain' } },
      { type: 'document', source: { kind: 'url', url: 'https://example.com/a.pdf' } },
      { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'one\n\ntwo' } },
    ]);
    assert.deepEqual(req.notes, ['anthropic: a content-source document was flattened to plain text']);
  });

  test('tool results: string, blocks, empty, error flag; documents inside are dropped with a note', () => {
    const content: Anthropic.ContentBlockParam[] = [
      { type: 'tool_result', tool_use_id: 't1', content: '' },
      { type: 'tool_result', tool_use_id: 't2' },
      {
        type: 'tool_result',
        tool_use_id: 't3',
        is_error: true,
        content: [
          { type: 'text', text: 'boom' },
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
        ],
      },
      {
        type: 'tool_result',
        tool_use_id: 't4',
        content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }],
      },
    ];
    const req = decodeRequest({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] });
    assert.deepEqual(req.messages[0]?.content, [
      { type: 'tool_result', toolCallId: 't1', content: [] },
      { type: 'tool_result', toolCallId: 't2', content: [] },
      {
        type: 'tool_result',
        toolCallId: 't3',
        content: [
          { type: 'text', text: 'boom' },
          { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
        ],
        isError: true,
      },
      { type: 'tool_result', toolCallId: 't4', content: [] },
    ]);
    assert.deepEqual(req.notes, ['anthropic: dropped a document block from a tool_result']);
  });

  test('server-tool blocks in history are dropped with a note; unsigned thinking has no signature', () => {
    const content: Anthropic.ContentBlockParam[] = [
      { type: 'thinking', thinking: 'hm', signature: '' },
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
      {
        type: 'text',
        text: 'done',
        citations: [
          {
            type: 'char_location',
            cited_text: 'd',
            document_index: 0,
            document_title: null,
            start_char_index: 0,
            end_char_index: 1,
          },
        ],
      },
    ];
    const req = decodeRequest({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content },
      ],
    });
    assert.deepEqual(req.messages[1]?.content, [
      { type: 'thinking', text: 'hm', family: 'anthropic' },
      {
        type: 'text',
        text: 'done',
        citations: [
          {
            type: 'char_location',
            cited_text: 'd',
            document_index: 0,
            document_title: null,
            start_char_index: 0,
            end_char_index: 1,
          },
        ],
      },
    ]);
    assert.deepEqual(req.notes, ['anthropic: dropped a server_tool_use block']);
  });

  test('tool_choice, thinking, effort, output format and sampling parameters', () => {
    const base = {
      model: 'm',
      max_tokens: 2048,
      messages: [{ role: 'user' as const, content: 'q' }],
      tools: [{ name: 'f', input_schema: { type: 'object' as const }, strict: true }],
    };
    const choices: [Anthropic.ToolChoice, unknown][] = [
      [{ type: 'auto' }, { type: 'auto' }],
      [
        { type: 'any', disable_parallel_tool_use: true },
        { type: 'any', disableParallel: true },
      ],
      [{ type: 'none' }, { type: 'none' }],
      [
        { type: 'tool', name: 'f', disable_parallel_tool_use: false },
        { type: 'tool', name: 'f', disableParallel: false },
      ],
    ];
    for (const [wire, canonical] of choices)
      assert.deepEqual(decodeRequest({ ...base, tool_choice: wire }).toolChoice, canonical);
    const body: Anthropic.MessageCreateParams & Sampling = {
      ...base,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      output_config: { effort: 'max', format: { type: 'json_schema', schema: { type: 'object' } } },
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
    };
    const req = decodeRequest(body);
    assert.deepEqual(req.tools, [{ name: 'f', inputSchema: { type: 'object' }, strict: true }]);
    assert.deepEqual(req.thinking, { type: 'enabled', budgetTokens: 1024 });
    assert.equal(req.reasoningEffort, 'high');
    assert.deepEqual(req.responseFormat, { type: 'json_schema', name: 'output', schema: { type: 'object' } });
    assert.deepEqual(
      [req.stopSequences, req.temperature, req.topP, req.topK, req.maxOutputTokens],
      [['END'], 0.5, 0.9, 40, 2048],
    );
    assert.deepEqual(req.notes, ['anthropic: effort "max" sent as "high"']);
    assert.deepEqual(decodeRequest({ ...base, thinking: { type: 'disabled' } }).thinking, { type: 'disabled' });
    const between = decodeRequest({ ...base, thinking: { type: 'between_tools' } });
    assert.equal(between.thinking, undefined);
    assert.deepEqual(between.notes, ['anthropic: dropped thinking type "between_tools"']);
  });

  test('a count_tokens body (no max_tokens, no stream) decodes', () => {
    const body: Anthropic.MessageCountTokensParams = { model: 'm', messages: [{ role: 'user', content: 'q' }] };
    const req = decodeRequest(body);
    assert.equal(req.maxOutputTokens, undefined);
    assert.equal(req.stream, false);
  });

  test('bodies Messages does not allow are 400s naming the field', () => {
    rejects('nope', 'body');
    rejects({ model: 'm', max_tokens: 1 }, 'messages');
    rejects({ max_tokens: 1, messages: [] }, 'model');
    rejects({ model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role');
    rejects({ model: 'm', messages: [{ role: 'user', content: 7 }] }, 'messages.0.content');
    rejects({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages.0.content.0.text');
    rejects(
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'ftp' } }] }] },
      'messages.0.content.0.source.type',
    );
    rejects({ model: 'm', system: [{ type: 'image' }], messages: [] }, 'system.0');
    rejects({ model: 'm', messages: [], tools: [{ name: 'f' }] }, 'tools.0.input_schema');
    rejects({ model: 'm', messages: [], tool_choice: { type: 'tool' } }, 'tool_choice.name');
  });
});

describe('schema', () => {
  test('accepts the Claude Code body, including role:"system" in messages and server tools', () => {
    assert.ok(
      Value.Check(MessagesRequest, claudeCodeBody),
      [...Value.Errors(MessagesRequest, claudeCodeBody)].map((e) => `${e.path} ${e.message}`).join('\n'),
    );
  });

  test('requires max_tokens ≥ 1 for messages but not for count_tokens', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'q' }] };
    assert.equal(Value.Check(MessagesRequest, body), false);
    assert.equal(Value.Check(MessagesRequest, { ...body, max_tokens: 0 }), false);
    assert.equal(Value.Check(MessagesRequest, { ...body, max_tokens: 1, unknown_field: { x: 1 } }), true);
    assert.equal(Value.Check(CountTokensRequest, body), true);
  });

  test('rejects blocks without a type and unknown roles', () => {
    assert.equal(
      Value.Check(MessagesRequest, {
        model: 'm',
        max_tokens: 1,
        messages: [{ role: 'user', content: [{ text: 'x' }] }],
      }),
      false,
    );
    assert.equal(
      Value.Check(MessagesRequest, { model: 'm', max_tokens: 1, messages: [{ role: 'tool', content: 'x' }] }),
      false,
    );
  });
});
