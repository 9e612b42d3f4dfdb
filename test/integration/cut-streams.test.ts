/**
 * A stream cut short (the upstream drops it, or the client hangs up: Esc in Claude Code) is billed
 * for what was produced, on the pass-through path of every format and on translated paths into and
 * out of every format, driven by the official SDKs. The upstream reports usage only at the end, so
 * none of these streams carries final figures: the output is counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { startGateway, waitFor, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

type Format = 'openai-chat' | 'anthropic' | 'openai-responses' | 'gemini';

/** 60 words, one o200k token each: a cut after 20 of them is billed exactly 20 output tokens. */
const REPLY = Array.from({ length: 60 }, () => 'word').join('%20');
const DELIVERED = 20;
/** Frames each mock stream sends before its first word; drop-after counts frames. */
const PREFIX: Record<Format, number> = { 'openai-chat': 1, anthropic: 3, 'openai-responses': 4, gemini: 0 };
/** One catalogue model per upstream format: the model picks the line. */
const MODEL: Record<Format, string> = {
  'openai-chat': 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  'openai-responses': 'gpt-5-mini',
  gemini: 'gemini-2.5-flash',
};

let mock: MockUpstream;
let gw: TestGateway;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(20);
  for (const format of Object.keys(MODEL) as Format[]) {
    const scenario = `reply=${REPLY},drop-after=${PREFIX[format] + DELIVERED}`;
    const baseUrl =
      format === 'openai-chat' || format === 'openai-responses'
        ? scenarioBase(mock, scenario)
        : scenarioOrigin(mock, scenario);
    await gw.admin.line({
      name: format,
      protocol: format,
      baseUrl,
      models: [MODEL[format]],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    });
  }
  // Claude Code's own case: a slow stream the client leaves.
  await gw.admin.line({
    name: 'slow',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, `reply=${REPLY},chunk-delay=15`),
    models: ['claude-sonnet-4-5'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
});

after(async () => {
  await gw.close();
  await mock.close();
});

/** Streams a prompt with the client's SDK until the stream ends or breaks; returns the text received. */
async function streamText(client: Format, key: string, model: string, signal?: AbortSignal): Promise<string> {
  let text = '';
  const prompt = 'Say many words.';
  try {
    if (client === 'openai-chat') {
      const s = await gw
        .openai(key)
        .chat.completions.create({ model, messages: [{ role: 'user', content: prompt }], stream: true }, { signal });
      for await (const c of s) text += c.choices[0]?.delta.content ?? '';
    } else if (client === 'openai-responses') {
      const s = await gw.openai(key).responses.create({ model, input: prompt, stream: true, store: false }, { signal });
      for await (const e of s) if (e.type === 'response.output_text.delta') text += e.delta;
    } else if (client === 'anthropic') {
      const c = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
      const s = await c.messages.create(
        { model, max_tokens: 1000, messages: [{ role: 'user', content: prompt }], stream: true },
        { signal },
      );
      for await (const e of s)
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
    } else {
      const c = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });
      for await (const r of await c.models.generateContentStream({
        model,
        contents: prompt,
        config: { abortSignal: signal },
      }))
        text += r.text ?? '';
    }
  } catch {
    // The cut: an in-band error event, a broken connection, or our own abort.
  }
  return text;
}

async function assertMoney(): Promise<void> {
  const w = await gw.admin.wallet();
  const rows = await gw.admin.logs();
  assert.equal(
    w.topupsMicro - w.balanceMicro,
    rows.reduce((s, r) => s + r.costMicro, 0),
    'top-ups − balance = Σ logged costs',
  );
  assert.equal(w.heldMicro, 0);
}

const PATHS: [client: Format, upstream: Format][] = [
  ['openai-chat', 'openai-chat'],
  ['anthropic', 'anthropic'],
  ['openai-responses', 'openai-responses'],
  ['gemini', 'gemini'],
  ['openai-chat', 'anthropic'],
  ['anthropic', 'openai-chat'],
  ['openai-responses', 'gemini'],
  ['gemini', 'openai-responses'],
];

describe('an upstream that drops the stream mid-answer', () => {
  for (const [client, upstream] of PATHS) {
    const kind = client === upstream ? 'pass-through' : 'translated';
    test(`${client} client, ${upstream} upstream (${kind}): billed the ${DELIVERED} words produced`, async () => {
      const keyName = `drop.${client}.${upstream}`;
      const text = await streamText(client, await gw.admin.key(keyName), MODEL[upstream]);
      assert.equal(
        text.split(/\s+/).filter(Boolean).length,
        DELIVERED,
        `the client got the words before the cut: "${text}"`,
      );
      const [row] = await gw.admin.logs({ key: keyName });
      assert.ok(row, 'a ledger row');
      assert.equal(row.usage.outputTokens, DELIVERED, `output billed: ${JSON.stringify(row.usage)}`);
      assert.ok(row.usage.inputTokens > 0, 'the prompt is billed too');
      assert.equal(row.usageEstimated, true);
      assert.ok(row.errorCode, 'the row says the stream broke');
      assert.ok(row.costMicro > 0);
      await assertMoney();
    });
  }
});

test('a Messages client that hangs up mid-stream (Esc in Claude Code) on the pass-through is billed for what was produced, not 1 token', async () => {
  const keyName = 'hangup.anthropic';
  const key = await gw.admin.key(keyName);
  const ac = new AbortController();
  let text = '';
  const c = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  try {
    const s = await c.messages.create(
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'Say many words.' }],
        stream: true,
      },
      { signal: ac.signal },
    );
    for await (const e of s) {
      if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
      if (text.split(' ').length >= 10) ac.abort();
    }
  } catch {
    // Our own abort.
  }
  const received = text.split(/\s+/).filter(Boolean).length;
  assert.ok(received >= 10, `received ${received} words`);
  await waitFor(async () => (await gw.admin.logs({ key: keyName })).length === 1, 'the row of the hung-up request');
  const [row] = await gw.admin.logs({ key: keyName });
  assert.equal(row!.status, 499);
  assert.ok(
    row!.usage.outputTokens >= received && row!.usage.outputTokens < 60,
    `billed ${row!.usage.outputTokens} output tokens for ${received} words received`,
  );
  assert.ok(row!.usage.inputTokens > 0, 'the prompt as message_start reported it');
  assert.equal(row!.usageEstimated, true);
  await assertMoney();
});
