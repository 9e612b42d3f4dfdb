/**
 * Reasoning follows the model, not the preset (docs/protocols.md §6.6): a DeepSeek or Kimi model
 * served by a line made by hand (a company proxy, an aggregator, a self-hosted endpoint) gets its
 * reasoning_content back from the model's own vendor data, so a tool loop with thinking on goes on
 * past its second turn from every client. The mock is the vendor in thinking mode and refuses a
 * tool-call turn without it, in DeepSeek's and Kimi's words. Behind that, the safety net: a model
 * the catalogue knows nothing about gets the vendor's 400 once, is sent again with the field, and
 * the line keeps the quirk; and a line that clears the quirk is obeyed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../../helpers/mock-upstream.js';
import { CLIENTS, conversation } from './conversation.js';

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

const auth = { apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' };

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(20);
  // Lines made without a preset: nothing on the line says the vendor wants its reasoning back.
  await gw.admin.line({
    name: 'proxy-deepseek',
    protocol: 'openai-chat',
    baseUrl: scenarioBase(mock, 'think'),
    models: ['deepseek-flash'],
    ...auth,
  });
  await gw.admin.line({
    name: 'proxy-kimi',
    protocol: 'openai-chat',
    baseUrl: scenarioBase(mock, 'think=kimi'),
    models: ['kimi-k3'],
    ...auth,
  });
  key = await gw.admin.key('by-model');
});

after(async () => {
  await gw.close();
  await mock.close();
});

for (const model of ['deepseek-flash', 'kimi-k3']) {
  for (const client of CLIENTS) {
    describe(`${model} on a line made by hand, ${client} client`, () => {
      for (const stream of [false, true]) {
        test(`a tool loop with thinking on goes on past its second turn${stream ? ', streaming' : ''}`, async () => {
          const from = mock.requests.length;
          const c = conversation(client, gw.url, key, stream);
          assert.ok((await c.say(model, 'weather in Oslo?')).called, 'turn 1 calls the tool');
          assert.match((await c.toolResult(model, 'sunny')).text, /tool result: sunny/);
          assert.ok((await c.say(model, 'and in Bergen?')).called, 'turn 3 calls the tool');
          assert.match((await c.toolResult(model, 'rainy')).text, /tool result: rainy/);
          const sent = mock.requests.slice(from);
          assert.equal(sent.length, 4, 'one upstream request per turn, none refused');
          const turn = sent[1]!.body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
          assert.equal(typeof turn.reasoning_content, 'string', 'the tool-call turn carries reasoning_content');
        });
      }
    });
  }
}

describe('the safety net', () => {
  test("a model the catalogue knows nothing of: the vendor's 400 is retried once with reasoning_content, and the line keeps it", async () => {
    await gw.admin.line({
      name: 'self-hosted',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, 'think'),
      models: ['acme-reasoner'],
      addModels: { free: true },
      ...auth,
    });
    const c = conversation('messages', gw.url, key, false);
    assert.ok((await c.say('acme-reasoner', 'weather in Oslo?')).called);
    let from = mock.requests.length;
    assert.match((await c.toolResult('acme-reasoner', 'sunny')).text, /tool result: sunny/);
    const tries = mock.requests.slice(from);
    assert.equal(tries.length, 2, 'refused once, then sent with the field');
    const callTurn = (i: number) => tries[i]!.body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
    assert.equal(callTurn(0).reasoning_content, undefined, 'the first try went without it');
    assert.match(callTurn(1).reasoning_content, /weather in Oslo/, 'the second with the reasoning the model gave');
    const row = (await gw.admin.logs({ limit: 1 }))[0]!;
    assert.equal(row.status, 200);
    assert.match(row.notes ?? '', /line "self-hosted": the upstream refused the request for want of reasoning_content/);
    const line = (await gw.admin.call('listLines')).lines.find((l) => l.name === 'self-hosted')!;
    assert.deepEqual(line.quirks, { reasoningField: 'reasoning_content' }, 'the line learnt the quirk');
    // The next turn goes with it from the start.
    assert.ok((await c.say('acme-reasoner', 'and in Bergen?')).called);
    from = mock.requests.length;
    assert.match((await c.toolResult('acme-reasoner', 'rainy')).text, /tool result: rainy/);
    assert.equal(mock.requests.length - from, 1, 'no refusal this time');
  });

  test("a line that clears the quirk is obeyed: the vendor's refusal reaches the client", async () => {
    await gw.admin.line({
      name: 'stripping-proxy',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, 'think'),
      models: ['deepseek-v4-flash'],
      quirks: { reasoningField: null },
      ...auth,
    });
    // A Messages client: translated, so the reasoning goes up only where the quirk says.
    const c = conversation('messages', gw.url, key, false);
    assert.ok((await c.say('deepseek-v4-flash', 'weather in Oslo?')).called);
    await assert.rejects(c.toolResult('deepseek-v4-flash', 'sunny'), (err: any) => {
      assert.equal(err.status, 400);
      assert.match(String(err.message), /reasoning_content/);
      return true;
    });
  });

  test('the line can take the quirk back (null clears it; the model then decides again)', async () => {
    const updated = await gw.admin.call('updateLine', {
      params: { name: 'self-hosted' },
      body: { quirks: { reasoningField: null } },
    });
    assert.deepEqual(updated.line.quirks, { reasoningField: null });
  });
});
