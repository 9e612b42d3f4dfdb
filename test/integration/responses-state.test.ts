/**
 * Responses conversation state (docs/protocols.md §3.1) through the official openai SDK: the
 * assistant message's `phase`, compaction items, `context_management` and
 * `POST /v1/responses/compact`, on the pass-through (store:false), the translated path (the SDK's
 * default store, Tollgate's own chain) and to a line of another format.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;
let gw: TestGateway;
let client: OpenAI;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_A_KEY = 'account-a';
  process.env.TOLLGATE_TEST_B_KEY = 'account-b';
  await gw.admin.topup(5);
  const line = { protocol: 'openai-responses' as const, baseUrl: scenarioBase(mock, 'phase') };
  await gw.admin.line({ ...line, name: 'a', models: ['gpt-5.4'], apiKeyEnv: 'TOLLGATE_TEST_A_KEY' });
  await gw.admin.line({ ...line, name: 'b', models: ['gpt-5.4-mini'], apiKeyEnv: 'TOLLGATE_TEST_B_KEY' });
  await gw.admin.line({
    name: 'claude',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, ''),
    models: ['claude-sonnet-4-6'],
    apiKeyEnv: 'TOLLGATE_TEST_A_KEY',
  });
  client = gw.openai(await gw.admin.key('k'));
});

after(async () => {
  await gw.close();
  await mock.close();
});

const last = () => mock.requests.at(-1)!;
const lastRow = async () => (await gw.admin.logs({ limit: 1 }))[0]!;
type Item = OpenAI.Responses.ResponseInputItem;

async function ask(params: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>, stream: boolean) {
  return stream ? await client.responses.stream(params).finalResponse() : await client.responses.create(params);
}

for (const stream of [false, true]) {
  describe(stream ? 'streaming' : 'not streaming', () => {
    test('phase: the pass-through gives it to the client and takes it back up as it came', async () => {
      const input: Item[] = [{ role: 'user', content: 'hi' }];
      const r = await ask({ model: 'gpt-5.4', input, store: false }, stream);
      const message = r.output.find((i) => i.type === 'message');
      assert.equal(message?.type === 'message' && message.phase, 'final_answer');
      input.push(...(r.output as Item[]), { role: 'user', content: 'again' });
      await ask({ model: 'gpt-5.4', input, store: false }, stream);
      const sent = last().body.input.find((i: any) => i.role === 'assistant');
      assert.equal(sent.phase, 'final_answer');
    });

    test("phase, context_management and compaction survive Tollgate's own chain (translated)", async () => {
      const first = await ask(
        {
          model: 'gpt-5.4',
          input: 'hello there',
          // A threshold the first prompt reaches: the answer starts with a compaction item.
          context_management: [{ type: 'compaction', compact_threshold: 1 }],
        },
        stream,
      );
      assert.deepEqual(last().body.context_management, [{ type: 'compaction', compact_threshold: 1 }]);
      const compaction = first.output.find((i) => i.type === 'compaction');
      assert.ok(compaction?.type === 'compaction', JSON.stringify(first.output));
      assert.match(compaction.encrypted_content, /^tollgate\.l1\./, 'bound to the line that made it');
      const message = first.output.find((i) => i.type === 'message');
      assert.equal(message?.type === 'message' && message.phase, 'final_answer');
      await ask({ model: 'gpt-5.4', input: 'go on', previous_response_id: first.id }, stream);
      const items = last().body.input as Record<string, unknown>[];
      const sentCompaction = items.find((i) => i.type === 'compaction');
      assert.ok(sentCompaction && !String(sentCompaction.encrypted_content).startsWith('tollgate.'), 'unbound');
      assert.equal(items.find((i) => i.role === 'assistant')?.phase, 'final_answer');
      assert.equal((await lastRow()).status, 200, 'the mock verified the compaction it made');
    });
  });
}

describe('POST /v1/responses/compact', () => {
  test('passes through to a Responses line, is billed from its usage, and its item goes back to that line', async () => {
    const before = (await gw.admin.wallet()).balanceMicro;
    const compacted = await client.responses.compact({
      model: 'gpt-5.4',
      input: [
        { role: 'user', content: 'first question' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'an answer', annotations: [] }] },
      ] as Item[],
    });
    assert.equal(last().path, '/v1/responses/compact');
    assert.equal(last().body.max_output_tokens, undefined, 'compaction takes no output limit');
    assert.equal(compacted.object, 'response.compaction');
    const item = compacted.output.find((i) => i.type === 'compaction');
    assert.ok(item?.type === 'compaction' && item.encrypted_content.startsWith('tollgate.l1.'));
    const row = await lastRow();
    assert.equal(row.status, 200);
    assert.ok(row.usage.inputTokens > 0 && row.costMicro > 0, 'billed like a call of the model');
    assert.equal(row.usageEstimated, false);
    assert.equal((await gw.admin.wallet()).balanceMicro, before - row.costMicro);

    const next = [...(compacted.output as Item[]), { role: 'user', content: 'and now?' } as Item];
    await client.responses.create({ model: 'gpt-5.4', input: next, store: false });
    assert.equal((await lastRow()).status, 200, 'the same account reads its compaction');

    // Another line is another account: its compaction cannot go there, and is left out with a note.
    await client.responses.create({ model: 'gpt-5.4-mini', input: next, store: false });
    assert.ok(!(last().body.input as { type?: string }[]).some((i) => i.type === 'compaction'));
    const other = await lastRow();
    assert.equal(other.status, 200);
    assert.match(other.notes ?? '', /1 compaction item\(s\).*made by another line/);
  });

  test("previous_response_id is resolved from Tollgate's store and sent as input", async () => {
    const first = await client.responses.create({ model: 'gpt-5.4', input: 'remember me' });
    await client.responses.compact({ model: 'gpt-5.4', previous_response_id: first.id, input: 'and this' });
    const sent = last().body;
    assert.equal(sent.previous_response_id, undefined);
    assert.deepEqual(
      (sent.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user').map((i) => i.content),
      ['remember me', 'and this'],
    );
  });

  test('a model served by no Responses line: a 400 in OpenAI shape, nothing sent, nothing charged', async () => {
    const sent = mock.requests.length;
    const err = await client.responses.compact({ model: 'claude-sonnet-4-6', input: 'x' }).then(
      () => assert.fail('compaction to an Anthropic line succeeded'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof OpenAI.BadRequestError, String(err));
    assert.equal(err.code, 'unsupported_endpoint');
    assert.match(err.message, /POST \/v1\/responses\/compact needs a line that speaks openai-responses.*anthropic/);
    assert.equal(mock.requests.length, sent);
    const row = await lastRow();
    assert.deepEqual([row.status, row.costMicro], [400, 0]);
  });
});

test('to a line of another format, phase, compaction and context_management are left out with notes', async () => {
  const first = await client.responses.create({ model: 'gpt-5.4', input: 'hi', store: false });
  const compacted = await client.responses.compact({ model: 'gpt-5.4', input: 'older things' });
  const r = await client.responses.create({
    model: 'claude-sonnet-4-6',
    store: false,
    context_management: [{ type: 'compaction', compact_threshold: 100000 }],
    input: [...(compacted.output as Item[]), ...(first.output as Item[]), { role: 'user', content: 'go on' }],
  });
  assert.equal(r.status, 'completed');
  assert.equal(last().path, '/v1/messages');
  assert.equal(last().body.context_management, undefined);
  const notes = (await lastRow()).notes ?? '';
  assert.match(notes, /anthropic: dropped the phase of assistant messages/);
  assert.match(notes, /anthropic: dropped 1 compaction item\(s\)/);
  assert.match(notes, /anthropic: dropped context_management/);
});
