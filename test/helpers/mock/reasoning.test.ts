/**
 * The mock as a thinking model of each vendor (`think`), driven with the official SDKs: it gives
 * reasoning in the vendor's form, takes its own back, and refuses reasoning that was lost or
 * forged with the vendor's own error (docs/protocols.md §6.6).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content } from '@google/genai';
import OpenAI from 'openai';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../mock-upstream.js';

let mock: MockUpstream;
before(async () => {
  mock = await startMockUpstream();
});
after(async () => {
  await mock.close();
});

const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** The status and message an SDK call failed with. */
async function failure(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await p.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e as { status: number; message: string },
  );
  return { status: err.status, message: err.message };
}

describe('Anthropic', () => {
  const client = (scenario: string) =>
    new Anthropic({ baseURL: scenarioOrigin(mock, scenario), apiKey: 'x', maxRetries: 0 });
  const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: WEATHER as Anthropic.Tool.InputSchema }];

  for (const stream of [false, true]) {
    test(`thinks with a signed block, takes it back, refuses it unsigned or altered (${stream ? 'stream' : 'json'})`, async () => {
      const c = client('think');
      const params = {
        model: 'm',
        max_tokens: 2000,
        thinking: { type: 'enabled' as const, budget_tokens: 1024 },
        tools,
        messages: [{ role: 'user' as const, content: 'weather in Oslo?' }],
      };
      const first = stream ? await c.messages.stream(params).finalMessage() : await c.messages.create(params);
      const [thinking, call] = first.content;
      assert.ok(thinking?.type === 'thinking' && thinking.signature.length > 10, JSON.stringify(first.content));
      assert.ok(call?.type === 'tool_use');
      const next = (assistant: Anthropic.ContentBlockParam[]) =>
        c.messages.create({
          ...params,
          messages: [
            ...params.messages,
            { role: 'assistant', content: assistant },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] },
          ],
        });
      const ok = await next(first.content as Anthropic.ContentBlockParam[]);
      assert.match(ok.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), /tool result: sunny/);
      for (const signature of ['', 'EqForeign', thinking.signature.slice(0, -2)]) {
        const bad = await failure(next([{ type: 'thinking', thinking: thinking.thinking, signature }, call]));
        assert.equal(bad.status, 400);
        assert.match(bad.message, /messages\.1\.content\.0: Invalid `signature` in `thinking` block/);
      }
      const edited = await failure(
        next([{ type: 'thinking', thinking: `${thinking.thinking} (edited)`, signature: thinking.signature }, call]),
      );
      assert.match(edited.message, /Invalid `signature`/);
      const dropped = await failure(next([call]));
      assert.match(dropped.message, /Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
    });
  }

  test('no thinking without `think`, and none when the request leaves thinking off', async () => {
    const plain = await client('').messages.create({
      model: 'm',
      max_tokens: 100,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.deepEqual(
      plain.content.map((b) => b.type),
      ['text'],
    );
    const off = await client('think').messages.create({
      model: 'm',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.deepEqual(
      off.content.map((b) => b.type),
      ['text'],
    );
  });
});

describe('OpenAI Responses', () => {
  const client = (scenario: string) =>
    new OpenAI({ baseURL: scenarioBase(mock, scenario), apiKey: 'x', maxRetries: 0 });

  for (const stream of [false, true]) {
    test(`reasons with encrypted_content when included, takes it back, refuses a foreign one (${stream ? 'stream' : 'json'})`, async () => {
      const c = client('think');
      const params = {
        model: 'm',
        input: 'weather in Oslo?',
        reasoning: { effort: 'medium' as const, summary: 'auto' as const },
        include: ['reasoning.encrypted_content' as const],
        store: false,
      };
      const res = stream ? await c.responses.stream(params).finalResponse() : await c.responses.create(params);
      const reasoning = res.output.find((i) => i.type === 'reasoning');
      assert.ok(reasoning?.type === 'reasoning' && reasoning.encrypted_content, JSON.stringify(res.output));
      assert.match(reasoning.summary[0]?.text ?? '', /weather in Oslo/);
      const again = (item: object) =>
        c.responses.create({
          ...params,
          input: [
            { role: 'user', content: 'weather in Oslo?' },
            item as OpenAI.Responses.ResponseReasoningItem,
            { role: 'user', content: 'and tomorrow?' },
          ],
        });
      await again(reasoning);
      const forged = await failure(again({ ...reasoning, encrypted_content: 'gAAAAForeign' }));
      assert.equal(forged.status, 400);
      assert.match(forged.message, /The encrypted content for item rs_\w+ could not be verified/);
      const bare = await failure(again({ type: 'reasoning', id: reasoning.id, summary: [] }));
      assert.equal(bare.status, 404);
    });
  }
});

describe('Gemini', () => {
  const client = (scenario: string) =>
    new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: scenarioOrigin(mock, scenario) } });
  const config = {
    tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: WEATHER }] }],
    thinkingConfig: { includeThoughts: true },
  };

  for (const stream of [false, true]) {
    test(`signs the first function call, takes its signature or the CLI placeholder, refuses none or a foreign one (${stream ? 'stream' : 'json'})`, async () => {
      const c = client('think');
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather in Oslo?' }] }];
      let parts: NonNullable<Content['parts']> = [];
      if (stream)
        for await (const chunk of await c.models.generateContentStream({ model: 'gemini-3-pro', contents, config }))
          parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      else
        parts =
          (await c.models.generateContent({ model: 'gemini-3-pro', contents, config })).candidates?.[0]?.content
            ?.parts ?? [];
      const thought = parts.find((p) => p.thought);
      const call = parts.find((p) => p.functionCall);
      assert.ok(thought?.thoughtSignature && call?.thoughtSignature, JSON.stringify(parts));
      const again = (callPart: object) =>
        c.models.generateContent({
          model: 'gemini-3-pro',
          config,
          contents: [
            ...contents,
            { role: 'model', parts: [callPart] },
            { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
          ],
        });
      await again(call);
      await again({ ...call, thoughtSignature: 'skip_thought_signature_validator' });
      const missing = await failure(again({ functionCall: call.functionCall }));
      assert.equal(missing.status, 400);
      assert.match(missing.message, /Function call is missing a thought_signature in functionCall parts/);
      const forged = await failure(again({ ...call, thoughtSignature: 'Q2lGb3JlaWdu' }));
      assert.match(forged.message, /Corrupted thought signature/);
    });
  }
});

describe('Chat Completions (DeepSeek, Kimi)', () => {
  const client = (scenario: string) =>
    new OpenAI({ baseURL: scenarioBase(mock, scenario), apiKey: 'x', maxRetries: 0 });
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', parameters: WEATHER } },
  ];

  for (const stream of [false, true]) {
    test(`reasoning_content must come back on tool-call turns, unchanged (${stream ? 'stream' : 'json'})`, async () => {
      const c = client('think');
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'weather in Oslo?' }];
      let message: OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      if (stream) {
        // The SDK's accumulator keeps only the last fragment of a field it does not know: join them here.
        let reasoning = '';
        const s = c.chat.completions
          .stream({ model: 'm', messages, tools })
          .on(
            'chunk',
            (chunk) =>
              (reasoning +=
                (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? ''),
          );
        message = { ...(await s.finalChatCompletion()).choices[0]!.message, reasoning_content: reasoning };
      } else message = (await c.chat.completions.create({ model: 'm', messages, tools })).choices[0]!.message;
      assert.match(message.reasoning_content ?? '', /weather in Oslo/);
      const call = message.tool_calls![0]!;
      const next = (assistant: object) =>
        c.chat.completions.create({
          model: 'm',
          tools,
          messages: [
            ...messages,
            assistant as OpenAI.ChatCompletionAssistantMessageParam,
            { role: 'tool', tool_call_id: call.id, content: 'sunny' },
          ],
        });
      await next({
        role: 'assistant',
        content: null,
        tool_calls: [call],
        reasoning_content: message.reasoning_content,
      });
      const lost = await failure(next({ role: 'assistant', content: null, tool_calls: [call] }));
      assert.equal(lost.status, 400);
      assert.match(lost.message, /The `reasoning_content` in the thinking mode must be passed back to the API/);
      const swapped = await failure(
        next({ role: 'assistant', content: null, tool_calls: [call], reasoning_content: '' }),
      );
      assert.match(swapped.message, /reasoning_content/);
    });
  }

  test('Kimi words it its own way; a foreign tool call needs reasoning_content too, empty is enough', async () => {
    const c = client('think=kimi');
    const foreign = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'toolu_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    };
    const messages = (assistant: object): OpenAI.ChatCompletionMessageParam[] => [
      { role: 'user', content: 'weather?' },
      assistant as OpenAI.ChatCompletionAssistantMessageParam,
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
    ];
    const missing = await failure(c.chat.completions.create({ model: 'm', tools, messages: messages(foreign) }));
    assert.match(
      missing.message,
      /thinking is enabled but reasoning_content is missing in assistant tool call message at index 1/,
    );
    await c.chat.completions.create({ model: 'm', tools, messages: messages({ ...foreign, reasoning_content: '' }) });
    // Thinking turned off: no rule, no reasoning.
    const off = await c.chat.completions.create({
      model: 'm',
      tools,
      messages: messages(foreign),
      thinking: { type: 'disabled' },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.equal((off.choices[0]!.message as { reasoning_content?: string }).reasoning_content, undefined);
  });
});
