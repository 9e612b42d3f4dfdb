import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FunctionCallingConfigMode,
  ThinkingLevel,
  Type,
  type Content,
  type GenerationConfig,
  type Tool,
} from '@google/genai';
import { decodeCountTokensRequest, decodeRequest } from '../../../gateway/wire/gemini/decode.js';

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });

describe('decodeRequest: tools and configuration', () => {
  test('OpenAPI `parameters` become JSON Schema; Google-run tools are dropped with a note', () => {
    const body: { contents: Content[]; tools: Tool[] } = {
      contents: [user('x')],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'f',
              parameters: {
                type: Type.OBJECT,
                properties: { type: { type: Type.STRING, enum: ['a'] }, n: { type: Type.NUMBER, nullable: true } },
                required: ['type'],
              },
            },
            { name: 'g' },
          ],
        },
        { googleSearch: {} },
        { codeExecution: {} },
      ],
    };
    const req = decodeRequest(body, 'm');
    assert.deepEqual(req.tools, [
      {
        name: 'f',
        inputSchema: {
          type: 'object',
          properties: { type: { type: 'string', enum: ['a'] }, n: { type: ['number', 'null'] } },
          required: ['type'],
        },
      },
      { name: 'g', inputSchema: { type: 'object', properties: {} } },
    ]);
    assert.deepEqual(req.notes, [
      'gemini: dropped the googleSearch tool (only Google can run it)',
      'gemini: dropped the codeExecution tool (only Google can run it)',
    ]);
  });

  test('function-calling modes', () => {
    const choice = (mode: FunctionCallingConfigMode, allowedFunctionNames?: string[]) =>
      decodeRequest(
        {
          contents: [user('x')],
          toolConfig: { functionCallingConfig: { mode, ...(allowedFunctionNames ? { allowedFunctionNames } : {}) } },
        },
        'm',
      ).toolChoice;
    assert.deepEqual(choice(FunctionCallingConfigMode.AUTO), { type: 'auto' });
    assert.deepEqual(choice(FunctionCallingConfigMode.ANY), { type: 'any' });
    assert.deepEqual(choice(FunctionCallingConfigMode.ANY, ['f']), { type: 'tool', name: 'f' });
    assert.deepEqual(choice(FunctionCallingConfigMode.ANY, ['f', 'g']), { type: 'any' });
    assert.deepEqual(choice(FunctionCallingConfigMode.NONE), { type: 'none' });
    assert.deepEqual(choice(FunctionCallingConfigMode.VALIDATED), { type: 'auto' });
  });

  test('thinking budgets, levels and includeThoughts', () => {
    const think = (thinkingConfig: GenerationConfig['thinkingConfig']) => {
      const r = decodeRequest({ contents: [user('x')], generationConfig: { thinkingConfig } }, 'm');
      return [r.thinking, r.reasoningEffort];
    };
    assert.deepEqual(think({ thinkingBudget: 0 }), [{ type: 'disabled' }, undefined]);
    assert.deepEqual(think({ thinkingBudget: -1 }), [{ type: 'adaptive' }, undefined]);
    assert.deepEqual(think({ thinkingBudget: 2048, includeThoughts: true }), [
      { type: 'enabled', budgetTokens: 2048 },
      undefined,
    ]);
    assert.deepEqual(think({ thinkingLevel: ThinkingLevel.LOW }), [undefined, 'low']);
    assert.deepEqual(think({ thinkingLevel: ThinkingLevel.MINIMAL, includeThoughts: true }), [
      { type: 'adaptive' },
      'minimal',
    ]);
    assert.deepEqual(think({ includeThoughts: false }), [undefined, undefined]);
    // The level is the client's text: one named like an Object.prototype member is unknown, not a function.
    for (const level of ['constructor', 'toString', '__proto__'])
      assert.deepEqual(think({ thinkingLevel: level as ThinkingLevel }), [undefined, undefined], level);
  });

  test('sampling fields, stop sequences, seed and penalties; uncarried fields are noted', () => {
    const req = decodeRequest(
      {
        contents: [user('x')],
        generationConfig: {
          maxOutputTokens: 99,
          temperature: 1.5,
          topP: 0.5,
          topK: 3,
          stopSequences: ['END'],
          seed: 7,
          presencePenalty: 0.1,
          frequencyPenalty: -0.2,
          candidateCount: 1,
        },
        safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
        cachedContent: 'cachedContents/abc',
        model: 'models/ignored',
      },
      'models/m',
    );
    const {
      model,
      maxOutputTokens,
      temperature,
      topP,
      topK,
      stopSequences,
      seed,
      presencePenalty,
      frequencyPenalty,
      notes,
    } = req;
    assert.deepEqual(
      {
        model,
        maxOutputTokens,
        temperature,
        topP,
        topK,
        stopSequences,
        seed,
        presencePenalty,
        frequencyPenalty,
        notes,
      },
      {
        model: 'm',
        maxOutputTokens: 99,
        temperature: 1.5,
        topP: 0.5,
        topK: 3,
        stopSequences: ['END'],
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: -0.2,
        notes: [
          'gemini: cachedContent is not carried to other providers',
          'gemini: safetySettings is not carried to other providers',
        ],
      },
    );
  });

  test('countTokens bodies: {contents} and {generateContentRequest}', () => {
    assert.deepEqual(decodeCountTokensRequest({ contents: [user('hi')] }, 'm').messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    const wrapped = decodeCountTokensRequest(
      { generateContentRequest: { model: 'models/m', contents: [user('hi')], systemInstruction: 'sys' } },
      'm',
    );
    assert.deepEqual([wrapped.system, wrapped.messages.length], [[{ type: 'text', text: 'sys' }], 1]);
  });
});
