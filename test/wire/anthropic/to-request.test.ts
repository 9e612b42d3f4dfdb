import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import type { CanonicalMessage, CanonicalRequest, ContentBlock } from '../../../gateway/core/canonical.js';
import { adaptiveModel, DEFAULT_MAX_TOKENS, toRequest } from '../../../gateway/wire/anthropic/to-request.js';
import { ANTHROPIC_VERSION } from '../../../gateway/wire/anthropic/versions.js';

function req(over: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    model: 'claude-sonnet-4-6',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    tools: [],
    stream: false,
    notes: [],
    ...over,
  };
}

type Body = Anthropic.MessageCreateParams & { temperature?: number; top_p?: number; top_k?: number };
const body = (r: CanonicalRequest): Body => toRequest(r).body as Body;
const user = (...content: CanonicalMessage['content']): CanonicalMessage => ({ role: 'user', content });
const assistant = (...content: CanonicalMessage['content']): CanonicalMessage => ({ role: 'assistant', content });

describe('toRequest', () => {
  test('path, headers and the minimal body', () => {
    const up = toRequest(req());
    assert.equal(up.path, '/v1/messages');
    assert.deepEqual(up.headers, { 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json' });
    const expected: Anthropic.MessageCreateParams = {
      model: 'claude-sonnet-4-6',
      max_tokens: DEFAULT_MAX_TOKENS,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    };
    assert.deepEqual(up.body, expected);
  });

  test('max_tokens: the client value, else the default, raised above an explicit thinking budget', () => {
    assert.equal(body(req({ maxOutputTokens: 300 })).max_tokens, 300);
    assert.equal(
      body(req({ thinking: { type: 'enabled', budgetTokens: 8000 } })).max_tokens,
      8000 + DEFAULT_MAX_TOKENS,
    );
    assert.equal(
      body(req({ maxOutputTokens: 2000, thinking: { type: 'enabled', budgetTokens: 8000 } })).max_tokens,
      2000,
    );
  });

  test('system blocks keep cache_control; empty text blocks are dropped everywhere', () => {
    const b = body(
      req({
        system: [
          { type: 'text', text: 'A', cacheControl: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: '' },
        ],
        messages: [
          user({ type: 'text', text: '' }, { type: 'text', text: 'Hi' }),
          assistant({ type: 'text', text: '' }),
          user({ type: 'text', text: 'more' }),
        ],
      }),
    );
    assert.deepEqual(b.system, [{ type: 'text', text: 'A', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    // The assistant turn emptied out, so the two user turns around it merge.
    assert.deepEqual(b.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'more' },
        ],
      },
    ]);
  });

  test('a conversation starting with the assistant (or empty) gets a filler user turn and a note', () => {
    const r = req({ messages: [assistant({ type: 'text', text: 'Hello' })] });
    assert.deepEqual(body(r).messages, [
      { role: 'user', content: [{ type: 'text', text: '.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
    ]);
    assert.match(r.notes.join('\n'), /did not start with a user turn/);
    assert.deepEqual(body(req({ messages: [] })).messages, [{ role: 'user', content: [{ type: 'text', text: '.' }] }]);
  });

  test('mid-conversation system messages become <system-reminder> user text; tool results lead their turn', () => {
    const r = req({
      messages: [
        user({ type: 'text', text: 'q' }),
        assistant({ type: 'tool_call', id: 'call_1', name: 'f', input: {} }),
        { role: 'system', content: [{ type: 'text', text: 'Be terse.', cacheControl: { type: 'ephemeral' } }] },
        user(
          { type: 'text', text: 'and' },
          { type: 'tool_result', toolCallId: 'call_1', name: 'f', content: [{ type: 'text', text: 'ok' }] },
        ),
      ],
    });
    assert.deepEqual(body(r).messages.slice(2), [
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'ok' }] },
          {
            type: 'text',
            text: '<system-reminder>\nBe terse.\n</system-reminder>',
            cache_control: { type: 'ephemeral' },
          },
          { type: 'text', text: 'and' },
        ],
      },
    ]);
    assert.deepEqual(r.notes, ['anthropic: mid-conversation system messages sent as <system-reminder> user text']);
  });

  test('thinking from Anthropic is sent back unchanged; foreign or unsigned thinking and foreign signatures are dropped', () => {
    const r = req({
      messages: [
        user({ type: 'text', text: 'q' }),
        assistant(
          { type: 'thinking', text: 'mine', signature: 'sig', family: 'anthropic' },
          { type: 'redacted_thinking', data: 'opaque', family: 'anthropic' },
          { type: 'thinking', text: 'theirs', signature: 'gsig', family: 'gemini' },
          { type: 'thinking', text: 'unsigned', family: 'anthropic' },
          { type: 'redacted_thinking', data: 'enc', family: 'openai' },
          {
            type: 'tool_call',
            id: 'functions.f:0',
            name: 'f',
            input: { a: 1 },
            signature: 'gsig',
            signatureFamily: 'gemini',
          },
        ),
        user({ type: 'tool_result', toolCallId: 'functions.f:0', content: [], isError: true }),
      ],
    });
    const [, a, u] = body(r).messages;
    const id = ((a?.content as Anthropic.ContentBlockParam[])[2] as Anthropic.ToolUseBlockParam).id;
    assert.match(id, /^functions_f_0_[0-9a-f]{12}$/);
    assert.deepEqual(a?.content, [
      { type: 'thinking', thinking: 'mine', signature: 'sig' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'tool_use', id, name: 'f', input: { a: 1 } },
    ]);
    assert.deepEqual(u?.content, [{ type: 'tool_result', tool_use_id: id, is_error: true }]);
    assert.deepEqual(r.notes, [
      'anthropic: dropped a thinking block from gemini: only the family that made it can verify it',
      'anthropic: dropped a thinking block from anthropic (unsigned): only the family that made it can verify it',
      'anthropic: dropped a redacted_thinking block from openai: only the family that made it can verify it',
      'anthropic: dropped the gemini signature of tool call functions.f:0',
    ]);
  });

  test('a tool loop that began on another family, with thinking on, goes with thinking off (Anthropic would refuse it)', () => {
    const loop = (opener: ContentBlock[], thinking: CanonicalRequest['thinking']) =>
      req({
        thinking,
        messages: [
          user({ type: 'text', text: 'q' }),
          assistant(...opener),
          user({ type: 'tool_result', toolCallId: 'c1', content: [] }),
        ],
      });
    const call: ContentBlock = { type: 'tool_call', id: 'c1', name: 'f', input: {} };
    const foreign = loop([{ type: 'thinking', text: 'deepseek', family: 'openai-chat' }, call], {
      type: 'enabled',
      budgetTokens: 2048,
    });
    assert.deepEqual(body(foreign).thinking, { type: 'disabled' });
    assert.ok(foreign.notes.some((n) => /thinking turned off for this request/.test(n)));
    assert.deepEqual(body(loop([call], { type: 'adaptive' })).thinking, { type: 'disabled' });
    // Its own signed thinking keeps thinking on; so does a loop that is over (a user turn with text) or thinking that was off.
    assert.deepEqual(
      body(
        loop([{ type: 'thinking', text: 'mine', signature: 'sig', family: 'anthropic' }, call], { type: 'adaptive' }),
      ).thinking,
      { type: 'adaptive' },
    );
    const over = req({
      thinking: { type: 'adaptive' },
      messages: [
        user({ type: 'text', text: 'q' }),
        assistant(call),
        user({ type: 'tool_result', toolCallId: 'c1', content: [] }),
        assistant({ type: 'text', text: 'a' }),
        user({ type: 'text', text: 'next' }),
      ],
    });
    assert.deepEqual(body(over).thinking, { type: 'adaptive' });
    assert.deepEqual(body(loop([call], { type: 'disabled' })).thinking, { type: 'disabled' });
  });

  test('images and documents', () => {
    const b = body(
      req({
        messages: [
          user(
            {
              type: 'image',
              source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' },
              detail: 'high',
              cacheControl: { type: 'ephemeral' },
            },
            { type: 'image', source: { kind: 'url', url: 'https://x/a.png' } },
            { type: 'image', source: { kind: 'file', fileId: 'file_1' } },
            { type: 'document', source: { kind: 'text', mediaType: 'text/markdown', data: '# hi' }, title: 'Notes' },
            { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } },
          ),
        ],
      }),
    );
    const expected: Anthropic.ContentBlockParam[] = [
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: 'AAAA' },
        cache_control: { type: 'ephemeral' },
      },
      { type: 'image', source: { type: 'url', url: 'https://x/a.png' } },
      { type: 'image', source: { type: 'file', file_id: 'file_1' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# hi' }, title: 'Notes' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
    ];
    assert.deepEqual(b.messages[0]?.content, expected);
  });

  test('tools and tool_choice', () => {
    const tools: CanonicalRequest['tools'] = [
      {
        name: 'f',
        description: 'does f',
        inputSchema: { type: 'object', properties: {} },
        strict: true,
        cacheControl: { type: 'ephemeral' },
      },
      { name: 'g', inputSchema: {} },
    ];
    const b = body(req({ tools, toolChoice: { type: 'any', disableParallel: true } }));
    const expected: Anthropic.ToolUnion[] = [
      {
        name: 'f',
        description: 'does f',
        input_schema: { type: 'object', properties: {} },
        strict: true,
        cache_control: { type: 'ephemeral' },
      },
      { name: 'g', input_schema: { type: 'object' } },
    ];
    assert.deepEqual(b.tools, expected);
    assert.deepEqual(b.tool_choice, { type: 'any', disable_parallel_tool_use: true });
    assert.deepEqual(body(req({ tools, toolChoice: { type: 'tool', name: 'g' } })).tool_choice, {
      type: 'tool',
      name: 'g',
    });
    assert.deepEqual(body(req({ tools, toolChoice: { type: 'none' } })).tool_choice, { type: 'none' });
    const noTools = req({ toolChoice: { type: 'auto' } });
    assert.equal(body(noTools).tool_choice, undefined);
    assert.deepEqual(noTools.notes, ['anthropic: dropped tool_choice (no tools)']);
  });

  test('thinking, effort, sampling, user and stream', () => {
    const b = body(
      req({
        thinking: { type: 'adaptive' },
        reasoningEffort: 'minimal',
        temperature: 1.6,
        topP: 0.9,
        topK: 5,
        stopSequences: ['X'],
        user: 'u-1',
        stream: true,
      }),
    );
    assert.deepEqual(
      {
        thinking: b.thinking,
        output_config: b.output_config,
        temperature: b.temperature,
        top_p: b.top_p,
        top_k: b.top_k,
        stop_sequences: b.stop_sequences,
        metadata: b.metadata,
        stream: b.stream,
      },
      {
        thinking: { type: 'adaptive' },
        output_config: { effort: 'low' },
        temperature: 1,
        top_p: 0.9,
        top_k: 5,
        stop_sequences: ['X'],
        metadata: { user_id: 'u-1' },
        stream: true,
      },
    );
    assert.deepEqual(body(req({ thinking: { type: 'enabled', budgetTokens: 2048 }, maxOutputTokens: 4096 })).thinking, {
      type: 'enabled',
      budget_tokens: 2048,
    });
    // An effort alone (an OpenAI or Gemini client) asks for thinking: adaptive on Claude 4.6 and later, a budget before.
    const effortOnly = req({ reasoningEffort: 'high', seed: 7, frequencyPenalty: 0.5 });
    const e = body(effortOnly);
    assert.deepEqual([e.thinking, e.output_config], [{ type: 'adaptive' }, { effort: 'high' }]);
    const older = req({ model: 'claude-haiku-4-5', reasoningEffort: 'medium' });
    const o = body(older);
    assert.deepEqual(
      [o.thinking, o.max_tokens, o.output_config],
      [{ type: 'enabled', budget_tokens: 8192 }, 8192 + DEFAULT_MAX_TOKENS, undefined],
    );
    assert.deepEqual(older.notes, ['anthropic: reasoning effort "medium" sent as a thinking budget of 8192 tokens']);
    assert.deepEqual(effortOnly.notes, [
      'anthropic: dropped seed (Messages has no such parameter)',
      'anthropic: dropped frequency_penalty (Messages has no such parameter)',
    ]);
    const explicit = req({ thinking: { type: 'enabled', budgetTokens: 4000 }, reasoningEffort: 'high' });
    assert.deepEqual(body(explicit).thinking, { type: 'enabled', budget_tokens: 4000 });
    assert.deepEqual(explicit.notes, ['anthropic: dropped reasoning effort "high" (thinking is not adaptive)']);
  });

  test('which Claude models think adaptively', () => {
    for (const m of [
      'claude-sonnet-4-6',
      'claude-opus-4-8',
      'claude-opus-5',
      'claude-haiku-5-5',
      'claude-sonnet-4-6-20260101',
    ])
      assert.equal(adaptiveModel(m), true, m);
    for (const m of [
      'claude-haiku-4-5',
      'claude-opus-4-5-20251101',
      'claude-3-7-sonnet-20250219',
      'claude-mythos-preview',
      'kimi-k2.6',
    ])
      assert.equal(adaptiveModel(m), false, m);
  });

  test('without native structured output, JSON response formats become a system instruction, and the client is told', () => {
    const r = req({
      system: [{ type: 'text', text: 'S' }],
      responseFormat: {
        type: 'json_schema',
        name: 'answer',
        schema: { type: 'object', properties: { a: { type: 'number' } } },
      },
    });
    const up = toRequest(r);
    const system = (up.body as Anthropic.MessageCreateParams).system as Anthropic.TextBlockParam[];
    assert.equal(system.length, 2);
    assert.match(
      system[1]?.text ?? '',
      /single JSON object.*"answer".*\{"type":"object","properties":\{"a":\{"type":"number"\}\}\}/s,
    );
    assert.deepEqual(r.notes, [
      "anthropic: structured output (json_schema) only asked for in the system prompt: this line's upstream has no native structured output",
    ]);
    assert.deepEqual(up.clientHeaders, { 'x-tollgate-structured-output': 'prompt' });
    assert.equal(body(req({ responseFormat: { type: 'text' } })).system, undefined);
  });

  test('with the structuredOutput quirk, a JSON schema goes natively in output_config.format, in the subset Anthropic accepts', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, format: 'email' },
        tags: { type: 'array', items: { type: 'string', pattern: '^x' }, minItems: 3 },
        when: { type: 'string', format: 'date-time' },
      },
      required: ['name'],
      additionalProperties: true,
    };
    const r = req({
      responseFormat: { type: 'json_schema', name: 'person', schema, strict: true },
      reasoningEffort: 'high',
      thinking: { type: 'adaptive' },
    });
    const up = toRequest(r, { structuredOutput: 'output_config' });
    const b = up.body as Record<string, any>;
    assert.equal(b.system, undefined, 'no instruction in the prompt');
    assert.equal(up.clientHeaders, undefined, 'nothing to tell the client');
    assert.deepEqual(b.output_config, {
      effort: 'high',
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string', format: 'email', description: '{minLength: 2}' },
            tags: {
              type: 'array',
              items: { type: 'string', description: '{pattern: "^x"}' },
              description: '{minItems: 3}',
            },
            when: { type: 'string', format: 'date-time' },
          },
          additionalProperties: false,
          required: ['name'],
        },
      },
    });
    // json_object has no schema to send: the prompt, and the header, even on such a line.
    const obj = toRequest(req({ responseFormat: { type: 'json_object' } }), { structuredOutput: 'output_config' });
    assert.equal((obj.body as Record<string, any>).output_config, undefined);
    assert.deepEqual(obj.clientHeaders, { 'x-tollgate-structured-output': 'prompt' });
  });
});
