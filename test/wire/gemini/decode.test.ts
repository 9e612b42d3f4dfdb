import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ThinkingLevel, Type, type Content, type GenerationConfig, type Tool, type ToolConfig } from '@google/genai';
import type { CanonicalRequest } from '../../../gateway/core/canonical.js';
import { GatewayError } from '../../../gateway/core/errors.js';
import { decodeRequest } from '../../../gateway/wire/gemini/decode.js';
import { makeCodec } from '../../../gateway/wire/gemini/client-codec.js';

/** The REST body of generateContent, in the SDK's own types (the SDK's `config` fields sit at the top level on the wire). */
interface Body {
  contents: Content[];
  systemInstruction?: Content | string;
  tools?: Tool[];
  toolConfig?: ToolConfig;
  generationConfig?: GenerationConfig;
  safetySettings?: unknown[];
  cachedContent?: string;
  model?: string;
}

function rejects(body: unknown, expected: { param: string; code?: string; message?: RegExp }): void {
  assert.throws(
    () => decodeRequest(body, 'gemini-x'),
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

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
const PNG = 'iVBORw0KGgo=';

describe('decodeRequest: Gemini CLI', () => {
  test('a realistic Gemini CLI turn after a tool call [OBSERVED shape, 0.61.0]', () => {
    const id = 'list_directory_1763800000000_0';
    const body: Body = {
      contents: [
        user('This is the Gemini CLI. We are setting up the context for our chat.'),
        { role: 'model', parts: [{ text: 'Got it. Thanks for the context!' }] },
        user('What is in this folder?'),
        {
          role: 'model',
          parts: [
            {
              functionCall: { id, name: 'list_directory', args: { dir_path: '.' } },
              thoughtSignature: 'skip_thought_signature_validator',
            },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id,
                name: 'list_directory',
                response: { output: 'Directory listing for /w:\nREADME.md\nsrc' },
              },
            },
          ],
        },
      ],
      systemInstruction: { role: 'user', parts: [{ text: 'You are an interactive CLI agent.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'list_directory',
              description: 'Lists the names of files and subdirectories.',
              parametersJsonSchema: {
                type: 'object',
                properties: { dir_path: { type: 'string', description: 'The path.' } },
                required: ['dir_path'],
              },
            },
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
        thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.HIGH },
      },
    };
    const expected: CanonicalRequest = {
      model: 'gemini-3.1-pro-preview',
      system: [{ type: 'text', text: 'You are an interactive CLI agent.' }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'This is the Gemini CLI. We are setting up the context for our chat.' }],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Got it. Thanks for the context!' }] },
        { role: 'user', content: [{ type: 'text', text: 'What is in this folder?' }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_call',
              id,
              name: 'list_directory',
              input: { dir_path: '.' },
              signature: 'skip_thought_signature_validator',
              signatureFamily: 'gemini',
            },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolCallId: id,
              name: 'list_directory',
              content: [{ type: 'text', text: 'Directory listing for /w:\nREADME.md\nsrc' }],
            },
          ],
        },
      ],
      tools: [
        {
          name: 'list_directory',
          description: 'Lists the names of files and subdirectories.',
          inputSchema: {
            type: 'object',
            properties: { dir_path: { type: 'string', description: 'The path.' } },
            required: ['dir_path'],
          },
        },
        {
          name: 'read_file',
          description: 'Reads a file.',
          inputSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
        },
      ],
      stream: true,
      temperature: 1,
      topP: 0.95,
      topK: 64,
      thinking: { type: 'adaptive' },
      reasoningEffort: 'high',
      notes: [],
    };
    assert.deepEqual(makeCodec('models/gemini-3.1-pro-preview', { stream: true }).decodeRequest(body), expected);
  });

  test("the router's JSON-mode call: responseJsonSchema with the SDK's upper-case types becomes JSON Schema", () => {
    const body: Body = {
      contents: [user('Classify: fix the typo in README.md')],
      systemInstruction: 'You are a model router.',
      generationConfig: {
        temperature: 0,
        maxOutputTokens: 1024,
        thinkingConfig: { thinkingBudget: 512 },
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: Type.OBJECT,
          properties: { complexity_reasoning: { type: Type.STRING }, complexity_score: { type: Type.INTEGER } },
          required: ['complexity_reasoning', 'complexity_score'],
        },
      },
    };
    const req = decodeRequest(body, 'gemini-3.5-flash-lite');
    assert.equal(req.stream, false);
    assert.deepEqual(req.system, [{ type: 'text', text: 'You are a model router.' }]);
    assert.deepEqual(req.responseFormat, {
      type: 'json_schema',
      name: 'response',
      schema: {
        type: 'object',
        properties: { complexity_reasoning: { type: 'string' }, complexity_score: { type: 'integer' } },
        required: ['complexity_reasoning', 'complexity_score'],
      },
    });
    assert.deepEqual(
      [req.temperature, req.maxOutputTokens, req.thinking],
      [0, 1024, { type: 'enabled', budgetTokens: 512 }],
    );
  });

  test('JSON mode without a schema is json_object; text/plain is text; responseSchema (OpenAPI) is converted', () => {
    const fmt = (generationConfig: GenerationConfig) =>
      decodeRequest({ contents: [user('x')], generationConfig }, 'm').responseFormat;
    assert.deepEqual(fmt({ responseMimeType: 'application/json' }), { type: 'json_object' });
    assert.deepEqual(fmt({ responseMimeType: 'text/plain' }), { type: 'text' });
    assert.deepEqual(
      fmt({
        responseMimeType: 'application/json',
        responseSchema: { type: Type.ARRAY, items: { type: Type.STRING, nullable: true }, propertyOrdering: ['a'] },
      }),
      {
        type: 'json_schema',
        name: 'response',
        schema: { type: 'array', items: { type: ['string', 'null'] } },
      },
    );
  });
});

describe('decodeRequest: function calls and responses', () => {
  test('calls without ids get made-up ids; responses without ids match by name and order', () => {
    const body: Body = {
      contents: [
        user('Read both.'),
        {
          role: 'model',
          parts: [
            { text: 'Reading.' },
            { functionCall: { name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'sig-1' },
            { functionCall: { name: 'read_file', args: { path: 'b' } } },
            { functionCall: { name: 'mcp.search', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'mcp.search', response: { result: 'none' } } },
            { functionResponse: { name: 'read_file', response: { output: 'A' } } },
            { functionResponse: { name: 'read_file', response: { error: 'ENOENT: b' } } },
          ],
        },
      ],
    };
    const [, model, results] = decodeRequest(body, 'm').messages;
    assert.deepEqual(model?.content.slice(1), [
      {
        type: 'tool_call',
        id: 'read_file_1_1',
        name: 'read_file',
        input: { path: 'a' },
        signature: 'sig-1',
        signatureFamily: 'gemini',
      },
      { type: 'tool_call', id: 'read_file_1_2', name: 'read_file', input: { path: 'b' } },
      { type: 'tool_call', id: 'mcp_search_1_3', name: 'mcp.search', input: {} },
    ]);
    assert.deepEqual(results?.content, [
      {
        type: 'tool_result',
        toolCallId: 'mcp_search_1_3',
        name: 'mcp.search',
        content: [{ type: 'text', text: 'none' }],
      },
      { type: 'tool_result', toolCallId: 'read_file_1_1', name: 'read_file', content: [{ type: 'text', text: 'A' }] },
      {
        type: 'tool_result',
        toolCallId: 'read_file_1_2',
        name: 'read_file',
        content: [{ type: 'text', text: 'ENOENT: b' }],
        isError: true,
      },
    ]);
  });

  test('responses match by id first, whatever their order; other responses are JSON; media parts are kept', () => {
    const body: Body = {
      contents: [
        user('go'),
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'c1', name: 'f', args: { n: 1 } } },
            { functionCall: { id: 'c2', name: 'f', args: { n: 2 } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c2', name: 'f', response: { rows: [1, 2], ok: true } } },
            {
              functionResponse: {
                name: 'f',
                response: {},
                parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }],
              },
            },
          ],
        },
      ],
    };
    assert.deepEqual(decodeRequest(body, 'm').messages[2]?.content, [
      {
        type: 'tool_result',
        toolCallId: 'c2',
        name: 'f',
        content: [{ type: 'text', text: '{"rows":[1,2],"ok":true}' }],
      },
      {
        type: 'tool_result',
        toolCallId: 'c1',
        name: 'f',
        content: [
          { type: 'text', text: '{}' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
        ],
      },
    ]);
  });

  test('a response that matches no call keeps its own id and is noted', () => {
    const req = decodeRequest(
      { contents: [{ parts: [{ functionResponse: { id: 'x9', name: 'f', response: { output: 'o' } } }] }] },
      'm',
    );
    assert.deepEqual(req.messages[0]?.content, [
      { type: 'tool_result', toolCallId: 'x9', name: 'f', content: [{ type: 'text', text: 'o' }] },
    ]);
    assert.match(req.notes.join('\n'), /matches no earlier functionCall/);
  });
});

describe('decodeRequest: parts', () => {
  test('thoughts, media, file data, a missing role and the legacy function role', () => {
    const body: Body = {
      contents: [
        {
          parts: [
            { text: 'look' },
            { inlineData: { mimeType: 'image/png', data: PNG } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
            {
              fileData: {
                mimeType: 'image/jpeg',
                fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
              },
            },
            { fileData: { fileUri: 'https://example.com/cat.png' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/doc.pdf' } },
            { text: '' },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'pondering', thought: true, thoughtSignature: 'ts1' },
            { text: 'Done.', thoughtSignature: 'dropped' },
          ],
        },
        { role: 'function', parts: [{ text: 'legacy' }] },
      ],
    };
    assert.deepEqual(decodeRequest(body, 'm').messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
          { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' } },
          {
            type: 'image',
            source: { kind: 'file', fileId: 'https://generativelanguage.googleapis.com/v1beta/files/abc' },
          },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
          { type: 'document', source: { kind: 'url', url: 'gs://bucket/doc.pdf' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'pondering', signature: 'ts1', family: 'gemini' },
          { type: 'text', text: 'Done.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'legacy' }] },
    ]);
  });

  test('audio and video input are refused with the part named', () => {
    rejects(
      {
        contents: [{ role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }] }],
      },
      { param: 'contents[0].parts[1]', code: 'unsupported_value', message: /audio/ },
    );
    rejects(
      { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'video/mp4', fileUri: 'files/v' } }] }] },
      { param: 'contents[0].parts[0]', code: 'unsupported_value' },
    );
  });

  test('malformed bodies name the field at fault', () => {
    rejects([], { param: 'body' });
    rejects({ contents: [] }, { param: 'contents' });
    rejects({ contents: [{ role: 'assistant', parts: [] }] }, { param: 'contents[0].role' });
    rejects(
      { contents: [{ role: 'model', parts: [{ functionCall: { args: {} } }] }] },
      { param: 'contents[0].parts[0].functionCall.name' },
    );
    rejects(
      { contents: [user('x')], generationConfig: { candidateCount: 2 } },
      { param: 'generationConfig.candidateCount', code: 'unsupported_value' },
    );
    rejects(
      { contents: [user('x')], generationConfig: { temperature: 'hot' } },
      { param: 'generationConfig.temperature' },
    );
    rejects(
      { contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
      { param: 'toolConfig.functionCallingConfig.mode' },
    );
  });
});
