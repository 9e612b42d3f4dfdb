/**
 * Money that cannot leak, from outside, with the official SDKs against the mock upstream: usage
 * figures an upstream lies about (negative, 1e300, fractional) are refused and counted instead;
 * the reservation is the most a request is charged, so neither the wallet nor a key's quota is
 * overspent; 1-hour cache writes are billed at their own rate. After each, the ledger holds whole
 * numbers only and the doctor is clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { LogEntry } from '../../gateway/contract/admin/index.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

type Format = 'openai-chat' | 'anthropic' | 'openai-responses' | 'gemini';
const FORMATS: Format[] = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'];
/** One catalogue model per upstream format: the model picks the line. */
const MODEL: Record<Format, string> = {
  'openai-chat': 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  'openai-responses': 'gpt-5-mini',
  gemini: 'gemini-2.5-flash',
};

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
});

after(async () => {
  await mock.close();
});

/** A line of `format` serving `models`, whose every answer follows `scenario`. */
async function addLine(
  gw: TestGateway,
  name: string,
  format: Format,
  scenario: string,
  models: string[],
): Promise<void> {
  const baseUrl =
    format === 'openai-chat' || format === 'openai-responses'
      ? scenarioBase(mock, scenario)
      : scenarioOrigin(mock, scenario);
  await gw.admin.line({ name, protocol: format, baseUrl, models, apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY' });
}

/** One request in the client's own format, without an output limit where the format allows it; returns the text. */
async function ask(
  gw: TestGateway,
  client: Format,
  key: string,
  model: string,
  stream: boolean,
  maxTokens?: number,
): Promise<string> {
  const prompt = 'Tell me something.';
  if (client === 'openai-chat') {
    const c = gw.openai(key);
    if (!stream)
      return (
        (
          await c.chat.completions.create({
            model,
            messages: [{ role: 'user', content: prompt }],
            ...(maxTokens ? { max_tokens: maxTokens } : {}),
          })
        ).choices[0]!.message.content ?? ''
      );
    let text = '';
    for await (const ch of await c.chat.completions.create({
      model,
      messages: [{ role: 'user', content: prompt }],
      stream: true,
      stream_options: { include_usage: true },
    }))
      text += ch.choices[0]?.delta.content ?? '';
    return text;
  }
  if (client === 'openai-responses') {
    const c = gw.openai(key);
    if (!stream) return (await c.responses.create({ model, input: prompt, store: false })).output_text;
    let text = '';
    for await (const e of await c.responses.create({ model, input: prompt, store: false, stream: true }))
      if (e.type === 'response.output_text.delta') text += e.delta;
    return text;
  }
  if (client === 'anthropic') {
    // Messages requires max_tokens: 32,000 as Claude Code sends when streaming; the SDK refuses more
    // than 8,192 without a stream.
    const c = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    const body = {
      model,
      max_tokens: maxTokens ?? (stream ? 32_000 : 8_192),
      messages: [{ role: 'user' as const, content: prompt }],
    };
    if (!stream) return (await c.messages.create(body)).content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    let text = '';
    for await (const e of await c.messages.create({ ...body, stream: true }))
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    return text;
  }
  const c = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
  if (!stream) return (await c.models.generateContent({ model, contents: prompt })).text ?? '';
  let text = '';
  for await (const r of await c.models.generateContentStream({ model, contents: prompt })) text += r.text ?? '';
  return text;
}

/** The ledger's money: whole numbers, the invariant, nothing held, the doctor clean. */
async function assertLedgerSound(gw: TestGateway): Promise<void> {
  const w = await gw.admin.wallet();
  const rows = await gw.admin.logs();
  assert.ok(Number.isSafeInteger(w.balanceMicro) && w.balanceMicro >= 0, `balance ${w.balanceMicro}`);
  for (const r of rows) assert.ok(Number.isSafeInteger(r.costMicro) && r.costMicro >= 0, `cost ${r.costMicro}`);
  assert.equal(
    w.topupsMicro - w.balanceMicro,
    rows.reduce((s, r) => s + r.costMicro, 0),
    'top-ups − balance = Σ logged costs',
  );
  assert.equal(w.heldMicro, 0);
  const doctor = await gw.admin.doctor();
  assert.equal(doctor.ok, true, JSON.stringify(doctor.checks.filter((c) => !c.ok)));
}

async function onlyRow(gw: TestGateway, keyName: string): Promise<LogEntry> {
  const rows = await gw.admin.logs({ key: keyName });
  assert.equal(rows.length, 1, `one row for ${keyName}`);
  return rows[0]!;
}

describe('usage figures an upstream lies about', () => {
  const LIES = [
    ['a negative completion count (it credited the wallet $8,000)', 'usage-out-raw=-8000000000'],
    ['1e300 prompt tokens (the balance became the float -8e300)', 'usage-in-raw=1e300'],
    ['a fractional output count (settlement threw, no ledger row)', 'usage-out-raw=2.5'],
  ] as const;
  for (const [what, scenario] of LIES) {
    describe(what, () => {
      let gw: TestGateway;
      before(async () => {
        gw = await startGateway();
        await gw.admin.topup(10);
        for (const f of FORMATS) await addLine(gw, f, f, `reply=four%20words%20for%20you,${scenario}`, [MODEL[f]]);
      });
      after(() => gw.close());

      for (const f of FORMATS) {
        for (const stream of [false, true]) {
          test(`${f} pass-through, ${stream ? 'streaming' : 'non-streaming'}: answered, the figures refused and counted instead, noted in the row`, async () => {
            const keyName = `${f}.${stream}`;
            const text = await ask(gw, f, await gw.admin.key(keyName), MODEL[f], stream);
            assert.equal(text, 'four words for you');
            const row = await onlyRow(gw, keyName);
            assert.equal(row.status, 200);
            assert.equal(row.usageEstimated, true, JSON.stringify(row));
            assert.match(row.notes ?? '', /upstream usage refused \(.+\): counted by Tollgate/);
            assert.equal(row.usage.outputTokens, 4, 'the four words produced, as Tollgate counts them');
            assert.ok(
              row.usage.inputTokens > 0 && row.usage.inputTokens < 100,
              `prompt counted: ${row.usage.inputTokens}`,
            );
            assert.ok(row.costMicro > 0 && row.costMicro < 1_000, `cost ${row.costMicro}`);
            await assertLedgerSound(gw);
          });
        }
      }

      test('translated (Chat client, Messages upstream): the same', async () => {
        const text = await ask(gw, 'openai-chat', await gw.admin.key('translated'), MODEL.anthropic, false);
        assert.equal(text, 'four words for you');
        const row = await onlyRow(gw, 'translated');
        assert.equal(row.usageEstimated, true);
        assert.equal(row.usage.outputTokens, 4);
        await assertLedgerSound(gw);
      });
    });
  }
});

describe('neither the wallet nor a quota is overspent', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
    await gw.admin.topup(2);
    // The upstream reports 400,000 output tokens whatever it is asked: $10 on claude-opus-4-8.
    await addLine(gw, 'greedy-messages', 'anthropic', 'usage-in=20,usage-out=400000', ['claude-opus-4-8']);
    // $0.80 on gpt-4.1-mini (1.60 per million).
    await addLine(gw, 'greedy-chat', 'openai-chat', 'usage-in=20,usage-out=500000', ['gpt-4.1-mini']);
  });
  after(() => gw.close());

  test('a Chat client without max_tokens on a $2 wallet: the limit sent upstream is what the wallet pays, and the wallet is never overdrawn', async () => {
    mock.reset();
    await ask(gw, 'openai-chat', await gw.admin.key('no-limit'), 'claude-opus-4-8', false);
    const sent = mock.requests.at(-1)!.body as { max_tokens: number };
    // $2 at $25 per million output tokens: under 80,000 tokens (the prompt is held too), below the model's 128,000.
    assert.ok(sent.max_tokens > 70_000 && sent.max_tokens < 80_000, `max_tokens sent upstream: ${sent.max_tokens}`);
    const row = await onlyRow(gw, 'no-limit');
    assert.equal(row.costMicro, 2_000_000, 'charged what the wallet had, no more');
    assert.ok(row.unchargedMicro > 0, 'what the upstream reported beyond that is recorded, not charged');
    assert.match(row.notes ?? '', /more than the wallet and the key's quota could pay: charged \$2\.00/);
    const w = await gw.admin.wallet();
    assert.ok(w.balanceMicro >= 0, `balance ${w.balanceMicro}`);
    await assertLedgerSound(gw);
  });

  test('a key with a $0.001 quota: a request its quota cannot pay a useful answer for is refused 402; one it can is charged within the quota', async () => {
    await gw.admin.topup(2);
    const tiny = await gw.admin.key('tiny', { quotaMicro: 1_000 });
    await assert.rejects(
      ask(gw, 'openai-chat', tiny, 'gpt-4.1-mini', false),
      (e: unknown) => e instanceof OpenAI.APIError && e.status === 402,
    );
    const small = await gw.admin.key('small', { quotaMicro: 5_000 });
    await ask(gw, 'openai-chat', small, 'gpt-4.1-mini', true);
    const row = (await gw.admin.logs({ key: 'small' }))[0]!;
    assert.equal(row.status, 200);
    assert.ok(row.costMicro <= 5_000, `charged ${row.costMicro} on a 5,000 micro-USD quota`);
    const { keys } = await gw.admin.client.call('listKeys');
    const used = keys.find((k) => k.name === 'small')!.usedMicro;
    assert.ok(used <= 5_000, `key usage ${used}`);
    await assert.rejects(
      ask(gw, 'openai-chat', small, 'gpt-4.1-mini', false),
      (e: unknown) => e instanceof OpenAI.APIError && e.status === 402,
      'the spent quota refuses the next request',
    );
    await assertLedgerSound(gw);
  });

  test("a key's quota lowered below what it already spent: the next request is refused, and doctor stays clean", async () => {
    await gw.admin.topup(2);
    const secret = await gw.admin.key('lowered', { quotaMicro: 2_000_000 });
    // Three answers of 5,000 output tokens at $1.60 per million: $0.008 each, well past the new quota.
    await addLine(gw, 'modest-chat', 'openai-chat', 'usage-in=20,usage-out=5000', ['gpt-4.1-mini']);
    await gw.admin.client.call('updateLine', { params: { name: 'greedy-chat' }, body: { enabled: false } });
    for (let i = 0; i < 3; i++) await ask(gw, 'openai-chat', secret, 'gpt-4.1-mini', false);
    const used = (await gw.admin.client.call('listKeys')).keys.find((k) => k.name === 'lowered')!.usedMicro;
    assert.ok(used > 20_000, `key usage ${used}`);
    await gw.admin.client.call('updateKey', { params: { name: 'lowered' }, body: { quotaMicro: 1_000 } });
    await assert.rejects(
      ask(gw, 'openai-chat', secret, 'gpt-4.1-mini', false),
      (e: unknown) => e instanceof OpenAI.APIError && e.status === 402,
    );
    await assertLedgerSound(gw);
  });
});

describe('1-hour cache writes', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
    await gw.admin.topup(10);
    await addLine(
      gw,
      'cache',
      'anthropic',
      'reply=cached,usage-in=10,usage-out=10,usage-cache-write=1000,usage-cache-write-1h=10000',
      ['claude-haiku-4-5'],
    );
  });
  after(() => gw.close());

  for (const [client, stream] of [
    ['anthropic', false],
    ['anthropic', true],
    ['openai-chat', false],
  ] as const) {
    test(`${client} client${stream ? ', streaming' : ''}: billed at the 1-hour rate (2× input), not the 5-minute one`, async () => {
      const keyName = `cache.${client}.${stream}`;
      await ask(gw, client, await gw.admin.key(keyName), 'claude-haiku-4-5', stream);
      const row = await onlyRow(gw, keyName);
      assert.deepEqual([row.usage.cacheWriteTokens, row.usage.cacheWrite1hTokens], [1_000, 10_000]);
      // Haiku 4.5: input $1, output $5, 5-minute writes $1.25, 1-hour writes $2 per million tokens.
      assert.equal(row.costMicro, row.usage.inputTokens * 1 + 10 * 5 + Math.ceil(1_000 * 1.25) + 10_000 * 2);
      await assertLedgerSound(gw);
    });
  }

  test('a Messages client is told both kinds apart, as Anthropic reports them', async () => {
    const c = new Anthropic({ baseURL: gw.url, apiKey: await gw.admin.key('cache.usage'), maxRetries: 0 });
    const m = await c.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 8_192,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(m.usage.cache_creation_input_tokens, 11_000);
    assert.deepEqual(m.usage.cache_creation, { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 10_000 });
  });
});
