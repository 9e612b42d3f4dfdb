/**
 * Every inbound protocol against every upstream protocol, streaming and not, driven by the
 * official SDKs: text, a tool-call round trip, stop reasons, and exact billing in the log.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import type OpenAI from 'openai';
import { expectedCostMicro, startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

/** Forced usage: 1000 prompt tokens of which 200 cached, 500 out — the same on every wire. */
const FORCED = 'usage-in=1000,usage-out=500,usage-cached=200';
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

interface Turn {
  text: string;
  stop: string;
  call?: { id: string; name: string; args: Record<string, unknown> };
}

interface Client {
  /** What the SDK calls the end of a plain answer and of a tool-call turn. */
  stops: { text: string; tool: string };
  ask(model: string, stream: boolean, prompt: string, withTool: boolean): Promise<Turn>;
  /** Sends the tool result for the call of the previous turn; returns the model's answer. */
  answer(model: string, stream: boolean, prompt: string, previous: Turn, result: string): Promise<Turn>;
}

function openaiClient(c: OpenAI): Client {
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER } },
  ];
  const run = async (model: string, stream: boolean, messages: OpenAI.ChatCompletionMessageParam[]): Promise<Turn> => {
    const done = stream
      ? await c.chat.completions.stream({ model, messages, tools }).finalChatCompletion()
      : await c.chat.completions.create({ model, messages, tools });
    const choice = done.choices[0]!;
    const tc = choice.message.tool_calls?.[0];
    const call =
      tc && tc.type === 'function'
        ? { id: tc.id, name: tc.function.name, args: JSON.parse(tc.function.arguments) as Record<string, unknown> }
        : undefined;
    return { text: choice.message.content ?? '', stop: choice.finish_reason, ...(call ? { call } : {}) };
  };
  return {
    stops: { text: 'stop', tool: 'tool_calls' },
    ask: (model, stream, prompt, withTool) =>
      withTool ? run(model, stream, [{ role: 'user', content: prompt }]) : runPlain(c, model, stream, prompt),
    answer: (model, stream, prompt, prev, result) =>
      run(model, stream, [
        { role: 'user', content: prompt },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: prev.call!.id,
              type: 'function',
              function: { name: prev.call!.name, arguments: JSON.stringify(prev.call!.args) },
            },
          ],
        },
        { role: 'tool', tool_call_id: prev.call!.id, content: result },
      ]),
  };
}

async function runPlain(c: OpenAI, model: string, stream: boolean, prompt: string): Promise<Turn> {
  if (!stream) {
    const r = await c.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }] });
    return { text: r.choices[0]!.message.content ?? '', stop: r.choices[0]!.finish_reason };
  }
  const s = await c.chat.completions.create({
    model,
    messages: [{ role: 'user', content: prompt }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let stop = '';
  for await (const chunk of s) {
    text += chunk.choices[0]?.delta.content ?? '';
    stop = chunk.choices[0]?.finish_reason ?? stop;
  }
  return { text, stop };
}

function anthropicClient(c: Anthropic): Client {
  const tools: Anthropic.Tool[] = [
    { name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER as Anthropic.Tool.InputSchema },
  ];
  const run = async (
    model: string,
    stream: boolean,
    messages: Anthropic.MessageParam[],
    withTool: boolean,
  ): Promise<Turn> => {
    const params = { model, max_tokens: 1024, messages, ...(withTool ? { tools } : {}) };
    const m = stream ? await c.messages.stream(params).finalMessage() : await c.messages.create(params);
    const text = m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const tu = m.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    return {
      text,
      stop: m.stop_reason ?? '',
      ...(tu ? { call: { id: tu.id, name: tu.name, args: tu.input as Record<string, unknown> } } : {}),
    };
  };
  return {
    stops: { text: 'end_turn', tool: 'tool_use' },
    ask: (model, stream, prompt, withTool) => run(model, stream, [{ role: 'user', content: prompt }], withTool),
    answer: (model, stream, prompt, prev, result) =>
      run(
        model,
        stream,
        [
          { role: 'user', content: prompt },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: prev.call!.id, name: prev.call!.name, input: prev.call!.args }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: prev.call!.id, content: result }] },
        ],
        true,
      ),
  };
}

function responsesClient(c: OpenAI): Client {
  const tools: OpenAI.Responses.FunctionTool[] = [
    { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: WEATHER, strict: false },
  ];
  const run = async (
    model: string,
    stream: boolean,
    input: OpenAI.Responses.ResponseInput,
    withTool: boolean,
  ): Promise<Turn> => {
    const params = { model, input, store: false, ...(withTool ? { tools } : {}) };
    const r = stream ? await c.responses.stream(params).finalResponse() : await c.responses.create(params);
    const fc = r.output.find((o) => o.type === 'function_call') as
      OpenAI.Responses.ResponseFunctionToolCall | undefined;
    return {
      text: r.output_text,
      stop: r.status ?? '',
      ...(fc
        ? { call: { id: fc.call_id, name: fc.name, args: JSON.parse(fc.arguments) as Record<string, unknown> } }
        : {}),
    };
  };
  return {
    stops: { text: 'completed', tool: 'completed' },
    ask: (model, stream, prompt, withTool) => run(model, stream, [{ role: 'user', content: prompt }], withTool),
    answer: (model, stream, prompt, prev, result) =>
      run(
        model,
        stream,
        [
          { role: 'user', content: prompt },
          {
            type: 'function_call',
            call_id: prev.call!.id,
            name: prev.call!.name,
            arguments: JSON.stringify(prev.call!.args),
          },
          { type: 'function_call_output', call_id: prev.call!.id, output: result },
        ],
        true,
      ),
  };
}

function geminiClient(ai: GoogleGenAI): Client {
  const tools = [
    {
      functionDeclarations: [{ name: 'get_weather', description: 'Weather for a city', parametersJsonSchema: WEATHER }],
    },
  ];
  const run = async (model: string, stream: boolean, contents: Content[], withTool: boolean): Promise<Turn> => {
    const params = { model, contents, config: withTool ? { tools } : {} };
    const chunks: GenerateContentResponse[] = stream ? [] : [await ai.models.generateContent(params)];
    if (stream) for await (const c of await ai.models.generateContentStream(params)) chunks.push(c);
    const text = chunks.map((c) => c.text ?? '').join('');
    const fc = chunks.flatMap((c) => c.functionCalls ?? [])[0];
    const stop = String(chunks.at(-1)?.candidates?.[0]?.finishReason ?? '');
    return { text, stop, ...(fc ? { call: { id: fc.id ?? '', name: fc.name!, args: fc.args ?? {} } } : {}) };
  };
  return {
    stops: { text: 'STOP', tool: 'STOP' },
    ask: (model, stream, prompt, withTool) =>
      run(model, stream, [{ role: 'user', parts: [{ text: prompt }] }], withTool),
    answer: (model, stream, prompt, prev, result) =>
      run(
        model,
        stream,
        [
          { role: 'user', parts: [{ text: prompt }] },
          {
            role: 'model',
            parts: [
              {
                functionCall: {
                  ...(prev.call!.id ? { id: prev.call!.id } : {}),
                  name: prev.call!.name,
                  args: prev.call!.args,
                },
              },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  ...(prev.call!.id ? { id: prev.call!.id } : {}),
                  name: prev.call!.name,
                  response: { output: result },
                },
              },
            ],
          },
        ],
        true,
      ),
  };
}

let mock: MockUpstream;
let gw: TestGateway;
const INBOUND = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;
type Inbound = (typeof INBOUND)[number];
const CLIENTS: Record<Inbound, (key: string) => Client> = {
  'openai-chat': (key) => openaiClient(gw.openai(key)),
  anthropic: (key) => anthropicClient(new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 })),
  'openai-responses': (key) => responsesClient(gw.openai(key)),
  gemini: (key) => geminiClient(new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } })),
};

/**
 * A client with a key of its own: the test finds its ledger rows by the key's name, whatever ran
 * before it, so any test runs alone or in any order.
 */
async function clientFor(inbound: Inbound, keyName: string): Promise<Client> {
  return CLIENTS[inbound](await gw.admin.key(keyName));
}

/** The ledger rows of a key, oldest first. A row is written before its answer ends: no waiting. */
async function rowsOf(keyName: string): Promise<Awaited<ReturnType<TestGateway['admin']['logs']>>> {
  return (await gw.admin.logs({ key: keyName })).reverse();
}
/** Upstream protocol → the catalogue model its line serves. */
const upstreams = {
  'openai-chat': 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  'openai-responses': 'gpt-5-mini',
  gemini: 'gemini-2.5-flash',
} as const;
const PATHS: Record<string, RegExp> = {
  'openai-chat': /^\/v1\/chat\/completions$/,
  anthropic: /^\/v1\/messages$/,
  'openai-responses': /^\/v1\/responses$/,
  gemini: /^\/v1beta\/models\/gemini-2\.5-flash:(generateContent|streamGenerateContent)$/,
};

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(20);
  await gw.admin.line({
    name: 'openai',
    protocol: 'openai-chat',
    baseUrl: scenarioBase(mock, FORCED),
    models: [upstreams['openai-chat']],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, FORCED),
    models: [upstreams.anthropic],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'responses',
    protocol: 'openai-responses',
    baseUrl: scenarioBase(mock, FORCED),
    models: [upstreams['openai-responses']],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'gemini',
    protocol: 'gemini',
    baseUrl: scenarioOrigin(mock, FORCED),
    models: [upstreams.gemini],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
});

after(async () => {
  await gw.close();
  await mock.close();
});

for (const inbound of INBOUND) {
  for (const [upstream, model] of Object.entries(upstreams)) {
    for (const stream of [false, true]) {
      const keyName = `${inbound}.${upstream}${stream ? '.stream' : ''}`;
      // The pair is in each test's name, so --test-name-pattern can pick any single test.
      const pair = `${inbound} → ${upstream}${stream ? ', streaming' : ''}`;
      test(`${pair}: text, stop reason and exact billing`, async () => {
        const client = await clientFor(inbound, `${keyName}.text`);
        const before = mock.requests.length;
        const turn = await client.ask(model, stream, `hello from ${inbound}`, false);
        assert.equal(turn.text, `mock reply to: hello from ${inbound}`);
        assert.equal(turn.stop, client.stops.text);
        const sent = mock.requests.slice(before);
        assert.equal(sent.length, 1);
        assert.match(sent[0]!.path, PATHS[upstream]!);
        // Gemini names the model in the path (PATHS), never in the body.
        assert.equal(sent[0]!.body.model, upstream === 'gemini' ? undefined : model);
        const rows = await rowsOf(`${keyName}.text`);
        assert.equal(rows.length, 1);
        const row = rows[0]!;
        assert.equal(row.inboundProtocol, inbound);
        assert.equal(row.upstreamProtocol, upstream);
        assert.equal(row.stream, stream);
        assert.equal(row.status, 200);
        assert.deepEqual([row.usage.inputTokens, row.usage.cacheReadTokens, row.usage.outputTokens], [800, 200, 500]);
        assert.equal(row.usageEstimated, false);
        assert.equal(
          row.costMicro,
          expectedCostMicro({ input: 1000, cached: 200, output: 500 }, (await gw.admin.modelOf(model)).prices),
        );
      });

      test(`${pair}: a tool call round trip`, async () => {
        const client = await clientFor(inbound, `${keyName}.tool`);
        const before = mock.requests.length;
        const first = await client.ask(model, stream, 'what is the weather in Paris?', true);
        assert.equal(first.stop, client.stops.tool);
        assert.equal(first.call?.name, 'get_weather');
        assert.deepEqual(first.call?.args, { city: 'x' });
        // The call id is the upstream's own (toolu_ from Anthropic, call_ from OpenAI), or one Tollgate makes
        // for Gemini, whose calls carry none; only Gemini to Gemini passes that absence through.
        const idShape =
          upstream === 'gemini' && inbound === 'gemini'
            ? /^$/
            : upstream === 'anthropic'
              ? /^toolu_[A-Za-z0-9]+$/
              : /^call_[A-Za-z0-9_]+$/;
        assert.match(first.call!.id, idShape);
        const second = await client.answer(model, stream, 'what is the weather in Paris?', first, 'sunny, 21 °C');
        assert.equal(second.text, 'tool result: sunny, 21 °C');
        assert.equal(second.stop, client.stops.text);
        const sent = mock.requests.slice(before);
        assert.equal(sent.length, 2, 'one upstream request per turn');
        const rows = await rowsOf(`${keyName}.tool`);
        assert.deepEqual(
          rows.map((r) => [r.status, r.stream, r.upstreamProtocol]),
          [
            [200, stream, upstream],
            [200, stream, upstream],
          ],
        );
        // The upstream saw the call and its result tied together in its own format.
        const last = sent[1]!.body;
        if (upstream === 'anthropic') {
          const toolUse = last.messages[1].content.find((b: { type: string }) => b.type === 'tool_use');
          const result = last.messages[2].content.find((b: { type: string }) => b.type === 'tool_result');
          assert.equal(result.tool_use_id, toolUse.id);
        } else if (upstream === 'openai-chat') {
          assert.equal(last.messages.at(-1).tool_call_id, last.messages.at(-2).tool_calls[0].id);
        } else if (upstream === 'openai-responses') {
          const call = last.input.find((i: { type?: string }) => i.type === 'function_call');
          const output = last.input.find((i: { type?: string }) => i.type === 'function_call_output');
          assert.equal(output.call_id, call.call_id);
        } else {
          const call = last.contents.at(-2).parts.find((p: { functionCall?: unknown }) => p.functionCall).functionCall;
          const response = last.contents
            .at(-1)
            .parts.find((p: { functionResponse?: unknown }) => p.functionResponse).functionResponse;
          assert.equal(response.name, call.name);
          assert.equal(typeof response.response, 'object');
        }
      });
    }
  }
}

test('the same conversation costs the same whichever way it travels', async () => {
  for (const inbound of INBOUND) {
    const client = await clientFor(inbound, `same-cost.${inbound}`);
    for (const stream of [false, true]) await client.ask(upstreams.anthropic, stream, 'the same question', false);
  }
  const expected = INBOUND.length * 2;
  const logged = (await Promise.all(INBOUND.map((inbound) => rowsOf(`same-cost.${inbound}`)))).flat();
  assert.equal(logged.length, expected);
  assert.deepEqual(
    logged.map((r) => r.status),
    Array<number>(expected).fill(200),
  );
  assert.deepEqual(new Set(logged.map((r) => r.inboundProtocol)), new Set(INBOUND));
  const costs = new Set(logged.map((r) => r.costMicro));
  assert.equal(costs.size, 1, `costs differ: ${[...costs].join(', ')}`);
  assert.ok([...costs][0]! > 0, 'the conversation is billed');
  assert.equal((await gw.admin.doctor()).ok, true);
});
