import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FunctionCallingConfigMode,
  ThinkingLevel,
  type Content,
  type GenerationConfig,
  type Tool,
  type ToolConfig,
} from '@google/genai';
import type { CanonicalRequest } from '../../../gateway/core/canonical.js';
import { decodeRequest } from '../../../gateway/wire/gemini/decode.js';
import { toRequest } from '../../../gateway/wire/gemini/to-request.js';

/** The REST body of generateContent, in the SDK's own types. */
interface Body {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: ToolConfig;
  generationConfig?: GenerationConfig;
}

const SKIP = 'skip_thought_signature_validator';
const PNG = 'iVBORw0KGgo=';
const base = (over: Partial<CanonicalRequest>): CanonicalRequest => ({
  model: 'gemini-3-pro-preview',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  stream: false,
  notes: [],
  ...over,
});

describe('toRequest: history from another provider (Claude Code through Tollgate)', () => {
  const req: CanonicalRequest = {
    model: 'models/gemini-3-pro-preview',
    system: [
      { type: 'text', text: 'You are Claude Code.', cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: '' },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Read a and b.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'Two reads.', signature: 'anthropic-sig', family: 'anthropic' },
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_call', id: 'toolu_a', name: 'Read', input: { file_path: 'a' } },
          { type: 'tool_call', id: 'toolu_b', name: 'Read', input: { file_path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Here:' },
          {
            type: 'tool_result',
            toolCallId: 'toolu_b',
            content: [
              { type: 'text', text: 'B' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
            ],
          },
          {
            type: 'tool_result',
            toolCallId: 'toolu_a',
            content: [{ type: 'text', text: 'no such file' }],
            isError: true,
            cacheControl: { type: 'ephemeral' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'b is a PNG.' }] },
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ],
    tools: [
      {
        name: 'Read',
        description: 'Reads a file',
        inputSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
        cacheControl: { type: 'ephemeral' },
      },
    ],
    toolChoice: { type: 'any', disableParallel: true },
    maxOutputTokens: 64000,
    temperature: 1,
    stream: true,
    thinking: { type: 'adaptive' },
    reasoningEffort: 'high',
    user: 'u-1',
    notes: [],
  };

  test('turns, responses in call order without foreign ids, the signature placeholder, tools and config', () => {
    const up = toRequest(req);
    assert.equal(up.path, '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
    assert.deepEqual(up.headers, {});
    const expected: Body = {
      systemInstruction: { parts: [{ text: 'You are Claude Code.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Read a and b.' }] },
        {
          role: 'model',
          parts: [
            { text: 'Reading both.' },
            { functionCall: { name: 'Read', args: { file_path: 'a' } }, thoughtSignature: SKIP },
            { functionCall: { name: 'Read', args: { file_path: 'b' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'Read', response: { error: 'no such file' } } },
            { functionResponse: { name: 'Read', response: { output: 'B' } } },
            { inlineData: { mimeType: 'image/png', data: PNG } },
            { text: 'Here:' },
          ],
        },
        { role: 'model', parts: [{ text: 'b is a PNG.' }] },
        { role: 'user', parts: [{ text: '<system-reminder>\nBe brief.\n</system-reminder>' }, { text: 'Thanks' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'Read',
              description: 'Reads a file',
              parametersJsonSchema: {
                type: 'object',
                properties: { file_path: { type: 'string' } },
                required: ['file_path'],
              },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      generationConfig: {
        maxOutputTokens: 64000,
        temperature: 1,
        thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH, includeThoughts: true },
      },
    };
    assert.deepEqual(up.body, expected);
    assert.deepEqual(up.notes, [
      'gemini: dropped thinking blocks from anthropic',
      'gemini: mid-conversation system messages sent as <system-reminder> user text',
      'gemini: foreign tool-call ids left out; Gemini pairs calls and responses by name and order',
      'gemini: "skip_thought_signature_validator" put on 1 function call(s) without a Gemini thought signature',
      'gemini: dropped disable_parallel_tool_use (Gemini has no such setting)',
      'gemini: dropped the end-user id (Gemini has no such field)',
    ]);
    assert.deepEqual(req.notes, [], 'the request is not changed');
  });
});

describe('toRequest: history Gemini made', () => {
  test('ids, call signatures and thoughts go back as they came; a parallel call keeps no placeholder', () => {
    const up = toRequest(
      base({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'plan', signature: 'ts-0', family: 'gemini' },
              {
                type: 'tool_call',
                id: 'call_r1_0',
                name: 'ls',
                input: {},
                signature: 'ts-1',
                signatureFamily: 'gemini',
              },
              { type: 'tool_call', id: 'call_r1_1', name: 'pwd', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', toolCallId: 'call_r1_1', name: 'pwd', content: [{ type: 'text', text: '/w' }] },
              { type: 'tool_result', toolCallId: 'call_r1_0', name: 'ls', content: [] },
            ],
          },
        ],
      }),
    );
    assert.deepEqual((up.body as unknown as Body).contents.slice(1), [
      {
        role: 'model',
        parts: [
          { text: 'plan', thought: true, thoughtSignature: 'ts-0' },
          { functionCall: { id: 'call_r1_0', name: 'ls', args: {} }, thoughtSignature: 'ts-1' },
          { functionCall: { id: 'call_r1_1', name: 'pwd', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_r1_0', name: 'ls', response: { output: '' } } },
          { functionResponse: { id: 'call_r1_1', name: 'pwd', response: { output: '/w' } } },
        ],
      },
    ]);
    assert.deepEqual(up.notes, []);
  });
});

describe('toRequest: edges', () => {
  test('a conversation opening with the model gets a filler user turn; media and text documents', () => {
    const up = toRequest(
      base({
        messages: [
          { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' }, detail: 'low' },
              { type: 'document', source: { kind: 'file', fileId: 'files/abc' } },
              { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'notes' }, title: 'n.txt' },
              { type: 'text', text: '' },
            ],
          },
          { role: 'user', content: [] },
        ],
      }),
    );
    assert.deepEqual((up.body as unknown as Body).contents, [
      { role: 'user', parts: [{ text: '.' }] },
      { role: 'model', parts: [{ text: 'Hello.' }] },
      {
        role: 'user',
        parts: [
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
          { fileData: { fileUri: 'files/abc' } },
          { text: 'notes' },
        ],
      },
    ]);
    assert.match(up.notes.join('\n'), /did not start with a user turn/);
  });

  test("a URL's extension named like an Object.prototype member gives no media type, not a function", () => {
    const up = toRequest(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.constructor' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.PNG' } },
            ],
          },
        ],
      }),
    );
    assert.deepEqual((up.body as unknown as Body).contents[0]!.parts, [
      { fileData: { fileUri: 'https://example.com/cat.constructor' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.PNG' } },
    ]);
  });

  test('thinking and effort, by model generation', () => {
    const config = (over: Partial<CanonicalRequest>) =>
      (toRequest(base(over)).body as unknown as Body).generationConfig?.thinkingConfig;
    assert.deepEqual(config({ thinking: { type: 'enabled', budgetTokens: 2048 } }), {
      thinkingBudget: 2048,
      includeThoughts: true,
    });
    assert.deepEqual(config({ thinking: { type: 'adaptive' } }), { includeThoughts: true });
    assert.deepEqual(config({ reasoningEffort: 'low' }), { thinkingLevel: 'LOW' });
    assert.deepEqual(config({ model: 'gemini-2.5-flash', reasoningEffort: 'medium' }), { thinkingBudget: 8192 });
    assert.deepEqual(config({ model: 'gemini-2.5-pro', reasoningEffort: 'high', thinking: { type: 'adaptive' } }), {
      thinkingBudget: 24576,
      includeThoughts: true,
    });
    assert.equal(config({ thinking: { type: 'disabled' } }), undefined);
    assert.equal(config({}), undefined);
    assert.match(
      toRequest(base({ thinking: { type: 'enabled', budgetTokens: 9 }, reasoningEffort: 'low' })).notes.join('\n'),
      /dropped reasoning effort "low"/,
    );
  });

  test('sampling, JSON mode, stop sequences and tool choice', () => {
    const up = toRequest(
      base({
        temperature: 2.5,
        topP: 0.9,
        topK: 40,
        seed: 3,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
        stopSequences: ['1', '2', '3', '4', '5', '6'],
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
        toolChoice: { type: 'tool', name: 'f' },
        tools: [{ name: 'f', inputSchema: { properties: {} } }],
      }),
    );
    const body = up.body as unknown as Body;
    assert.equal(up.path, '/v1beta/models/gemini-3-pro-preview:generateContent');
    assert.deepEqual(body.generationConfig, {
      temperature: 2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['1', '2', '3', '4', '5'],
      seed: 3,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object' },
    });
    assert.deepEqual(body.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } });
    assert.deepEqual(body.tools, [
      { functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object', properties: {} } }] },
    ]);
    assert.deepEqual(up.notes, [
      'gemini: temperature 2.5 clamped to 2',
      'gemini: only the first 5 stop sequences were sent',
    ]);
    const json = (responseFormat: CanonicalRequest['responseFormat']) =>
      (toRequest(base({ responseFormat })).body as unknown as Body).generationConfig;
    assert.deepEqual(json({ type: 'json_object' }), { responseMimeType: 'application/json' });
    assert.deepEqual(json({ type: 'text' }), { responseMimeType: 'text/plain' });
    assert.deepEqual(toRequest(base({ toolChoice: { type: 'none' } })).notes, [
      'gemini: dropped tool_choice (no tools)',
    ]);
  });
});

test('a Gemini CLI body survives decodeRequest → toRequest: ids, the signature placeholder and results come back as sent', () => {
  const id = 'read_file_1763800000000_0';
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'Read a.txt' }] },
      {
        role: 'model',
        parts: [
          { text: 'Reading.' },
          { functionCall: { id, name: 'read_file', args: { file_path: 'a.txt' } }, thoughtSignature: SKIP },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { id, name: 'read_file', response: { output: 'hello' } } }] },
    ],
    systemInstruction: { parts: [{ text: 'You are an interactive CLI agent.' }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'read_file',
            description: 'Reads a file.',
            parametersJsonSchema: {
              type: 'object',
              properties: { file_path: { type: 'string' } },
              required: ['file_path'],
            },
          },
        ],
      },
    ],
    generationConfig: {
      temperature: 1,
      topP: 0.95,
      topK: 64,
      thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true },
    },
  };
  const up = toRequest(decodeRequest(structuredClone(body), 'gemini-3.1-pro-preview', { stream: true }));
  assert.equal(up.path, '/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse');
  assert.deepEqual(up.body, body);
  assert.deepEqual(up.notes, []);
});
