/**
 * Signatures are bound to the line that made them (gateway/core/signatures.ts, docs/protocols.md
 * §6.6): a thinking conversation whose line fails over mid tool loop goes on, on the other line,
 * for every client protocol and every signing family, streaming and not. Each upstream is the mock
 * as a thinking model that refuses another account's signatures, and the two lines of a family
 * have two accounts (two keys).
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
import { CLIENTS, conversation } from './conversation.js';

type Family = 'anthropic' | 'responses' | 'gemini';
const FAMILIES: Record<Family, { model: string; protocol: 'anthropic' | 'openai-responses' | 'gemini' }> = {
  anthropic: { model: 'claude-sonnet-4-6', protocol: 'anthropic' },
  responses: { model: 'gpt-5.4', protocol: 'openai-responses' },
  gemini: { model: 'gemini-3.1-pro-preview', protocol: 'gemini' },
};

let mock: MockUpstream;
before(async () => {
  mock = await startMockUpstream();
  process.env.TOLLGATE_TEST_A_KEY = 'account-a';
  process.env.TOLLGATE_TEST_B_KEY = 'account-b';
});
after(async () => {
  await mock.close();
});

const base = (family: Family, scenario: string): string =>
  family === 'responses' ? scenarioBase(mock, scenario) : scenarioOrigin(mock, scenario);

/** A gateway with lines A (first choice) and B serving the family's model, on two accounts. */
async function twoLines(family: Family): Promise<{ gw: TestGateway; key: string }> {
  const gw = await startGateway();
  await gw.admin.topup(5);
  const { model, protocol } = FAMILIES[family];
  for (const [name, priority] of [
    ['a', 10],
    ['b', 0],
  ] as const)
    await gw.admin.line({
      name,
      protocol,
      baseUrl: base(family, 'think'),
      models: [model],
      priority,
      apiKeyEnv: `TOLLGATE_TEST_${name.toUpperCase()}_KEY`,
    });
  return { gw, key: await gw.admin.key('k') };
}

const accountOf = (r: RecordedRequest): string =>
  String(r.headers['x-api-key'] ?? r.headers['x-goog-api-key'] ?? r.headers.authorization ?? '').replace(
    /^Bearer /,
    '',
  );

/** What line B received of line A's reasoning: nothing signed by A may be there. */
function assertNothingOfA(family: Family, sent: RecordedRequest, fromA: RecordedRequest): void {
  const body = JSON.stringify(sent.body);
  assert.ok(!body.includes('tollgate.l1.'), `no bound value reaches an upstream: ${body}`);
  if (family === 'gemini') {
    const call = sent.body.contents.find((c: any) => c.role === 'model').parts.find((p: any) => p.functionCall);
    assert.equal(call.thoughtSignature, 'skip_thought_signature_validator', "A's signature replaced on B's call");
  }
  assert.equal(accountOf(fromA), 'account-a');
  assert.equal(accountOf(sent), 'account-b');
}

for (const family of Object.keys(FAMILIES) as Family[]) {
  describe(`${family}: failover between two accounts mid tool loop`, () => {
    for (const client of CLIENTS) {
      for (const stream of [false, true]) {
        test(`${client} client, ${stream ? 'streaming' : 'not streaming'}`, async () => {
          const { gw, key } = await twoLines(family);
          try {
            const { model } = FAMILIES[family];
            const c = conversation(client, gw.url, key, stream);
            const from = mock.requests.length;
            assert.ok((await c.say(model, 'weather in Oslo?')).called, 'line A calls the tool');
            // Line A goes down; the tool result fails over to line B.
            await gw.admin.client.call('updateLine', {
              params: { name: 'a' },
              body: { baseUrl: base(family, 'think,status=503') },
            });
            assert.match((await c.toolResult(model, 'sunny')).text, /tool result: sunny/);
            // Line A cools down: the conversation stays on B, with B's own reasoning coming back.
            assert.ok((await c.say(model, 'and in Bergen?')).called, 'line B calls the tool');
            assert.match((await c.toolResult(model, 'rainy')).text, /tool result: rainy/);
            const sent = mock.requests.slice(from).filter((r) => r.scenario.status === undefined);
            assert.equal(sent.length, 4, 'every turn answered, none refused');
            assertNothingOfA(family, sent[1]!, sent[0]!);
            const logs = await gw.admin.logs();
            const failedOver = logs.find((l) => l.attempts === 2);
            assert.ok(failedOver, 'the tool result was a failover');
            assert.equal(failedOver.status, 200);
            if (client !== 'chat' || family === 'gemini')
              assert.match(failedOver.notes ?? '', /made by another line/, 'the log says what was left out');
          } finally {
            await gw.close();
          }
        });
      }
    }
  });
}
