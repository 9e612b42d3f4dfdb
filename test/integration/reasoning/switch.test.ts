/**
 * A thinking conversation that changes family mid-session, for every client protocol, every pair
 * of upstream families, streaming and not (docs/protocols.md §6.6). Each upstream is the mock as
 * a thinking model of its vendor, which refuses reasoning that is foreign, unsigned, altered or
 * missing where the vendor needs it. The session:
 *
 *   1. the user asks; family A reasons and calls the tool;
 *   2. the tool result goes to family B, inside A's tool loop: B must get nothing it would refuse
 *      (and what it needs: DeepSeek wants reasoning_content on A's tool-call turn);
 *   3. the user asks again, on A: A must get its own reasoning from step 1 back, as it gave it,
 *      where the client's format can carry it;
 *   4. the tool result goes to A, which needs its reasoning of step 3.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import {
  scenarioBase,
  scenarioOrigin,
  startMockUpstream,
  type MockUpstream,
  type RecordedRequest,
} from '../../helpers/mock-upstream.js';
import { CLIENTS, conversation, type ClientKind } from './conversation.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

type Family = 'anthropic' | 'deepseek' | 'responses' | 'gemini';
const MODEL: Record<Family, string> = {
  anthropic: 'claude-sonnet-4-6',
  deepseek: 'deepseek-v4-flash',
  responses: 'gpt-5.4',
  gemini: 'gemini-3.1-pro-preview',
};
const FAMILIES = Object.keys(MODEL) as Family[];

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(20);
  const auth = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };
  await gw.admin.line({
    name: 'claude',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, 'think'),
    models: [MODEL.anthropic],
    ...auth,
  });
  // The DeepSeek preset brings its quirks: reasoning goes back in reasoning_content.
  await gw.admin.line({
    preset: 'deepseek',
    name: 'deepseek',
    baseUrl: scenarioBase(mock, 'think'),
    models: [MODEL.deepseek],
    ...auth,
  });
  await gw.admin.line({
    name: 'openai',
    protocol: 'openai-responses',
    baseUrl: scenarioBase(mock, 'think'),
    models: [MODEL.responses],
    ...auth,
  });
  await gw.admin.line({
    name: 'google',
    protocol: 'gemini',
    baseUrl: scenarioOrigin(mock, 'think'),
    models: [MODEL.gemini],
    ...auth,
  });
  key = await gw.admin.key('reasoning');
});

after(async () => {
  await gw.close();
  await mock.close();
});

/** Whether a client of this protocol can carry family A's reasoning from one turn to a later one. */
function carries(client: ClientKind, family: Family): boolean {
  // Chat Completions has only reasoning_content (text) and Gemini's extra_content on tool calls.
  return client !== 'chat' || family === 'deepseek' || family === 'gemini';
}

/** Step 3's request, as family A's upstream received it, holds A's own reasoning of step 1. */
function assertOwnReasoningBack(family: Family, sent: RecordedRequest): void {
  const body = sent.body;
  switch (family) {
    case 'anthropic': {
      const first = body.messages.find((m: any) => m.role === 'assistant');
      const thinking = first.content.find((b: any) => b.type === 'thinking');
      assert.ok(
        thinking && thinking.signature.startsWith('EqMock'),
        `Claude's signed thinking of step 1 came back: ${JSON.stringify(first.content)}`,
      );
      return;
    }
    case 'gemini': {
      const call = body.contents.find((c: any) => c.role === 'model').parts.find((p: any) => p.functionCall);
      assert.ok(
        call.thoughtSignature?.startsWith('CiMock'),
        `Gemini's own signature of step 1, not a placeholder: ${JSON.stringify(call)}`,
      );
      return;
    }
    case 'responses': {
      const reasoning = body.input.find((i: any) => i.type === 'reasoning');
      assert.ok(
        reasoning?.encrypted_content?.startsWith('gAAAAMock'),
        `OpenAI's encrypted reasoning of step 1 came back: ${JSON.stringify(body.input)}`,
      );
      return;
    }
    case 'deepseek': {
      const turn = body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
      assert.match(turn.reasoning_content, /weather in Oslo/, 'DeepSeek got its reasoning_content of step 1 back');
    }
  }
}

for (const client of CLIENTS) {
  for (const stream of [false, true]) {
    describe(`${client} client, ${stream ? 'streaming' : 'not streaming'}`, () => {
      for (const a of FAMILIES) {
        for (const b of FAMILIES) {
          test(`${a} → ${b} (inside ${a}'s tool loop) → ${a}`, async () => {
            const from = mock.requests.length;
            const c = conversation(client, gw.url, key, stream);
            assert.ok((await c.say(MODEL[a], 'weather in Oslo?')).called, 'step 1 calls the tool');
            assert.match((await c.toolResult(MODEL[b], 'sunny')).text, /tool result: sunny/);
            assert.ok((await c.say(MODEL[a], 'and in Bergen?')).called, 'step 3 calls the tool');
            assert.match((await c.toolResult(MODEL[a], 'rainy')).text, /tool result: rainy/);
            const sent = mock.requests.slice(from);
            assert.equal(sent.length, 4, 'one upstream request per turn, none refused');
            if (carries(client, a)) assertOwnReasoningBack(a, sent[2]!);
          });
        }
      }
    });
  }
}

test('Kimi: a tool-call turn from another family gets reasoning_content, so the session goes on', async () => {
  await gw.admin.line({
    preset: 'moonshot',
    name: 'kimi',
    baseUrl: scenarioBase(mock, 'think=kimi'),
    models: ['kimi-k2.6'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  for (const client of CLIENTS) {
    const c = conversation(client, gw.url, key, false);
    assert.ok((await c.say(MODEL.anthropic, 'weather in Oslo?')).called);
    assert.match((await c.toolResult('kimi-k2.6', 'sunny')).text, /tool result: sunny/, client);
    assert.ok((await c.say('kimi-k2.6', 'and in Bergen?')).called);
    assert.match((await c.toolResult('kimi-k2.6', 'rainy')).text, /tool result: rainy/, client);
  }
});
