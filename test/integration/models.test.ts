/**
 * A catalogue the user controls, end to end through the admin API and the official SDKs against
 * the mock upstream: local models free, a brand-new cloud model billed exactly at its prices, lines
 * with ids the catalogue lacks, OpenRouter-style priced model lists, a retired models, and the model square's filters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { CallArgs, Reply, RouteName } from '../../gateway/contract/admin/index.js';
import { expectedCostMicro, refusal, startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let gw: TestGateway;
let mock: MockUpstream;
let openai: OpenAI;

/** A scenario listing these model ids (each URL-encoded: ids hold `/` and `:`). */
const listing = (ids: string[], extra = ''): string =>
  `${extra ? `${extra},` : ''}models=${ids.map(encodeURIComponent).join('|')}`;

before(async () => {
  gw = await startGateway();
  mock = await startMockUpstream();
  await gw.admin.topup(20);
  openai = gw.openai(await gw.admin.key('models-test'));
});

after(async () => {
  await gw.close();
  await mock.close();
});

function call<N extends RouteName>(name: N, ...args: CallArgs<N>): Promise<Reply<N>> {
  return gw.admin.client.call(name, ...args);
}

describe('local models, free', () => {
  test('an Ollama line without --models serves every model the server lists, added at price 0, and requests cost nothing', async () => {
    const { line, addedModels } = await call('addLine', {
      body: {
        preset: 'ollama',
        baseUrl: scenarioBase(mock, listing(['qwen3-coder:30b', 'llama3.2:3b'], 'usage-in=900,usage-out=300')),
      },
    });
    assert.deepEqual(line.models, ['qwen3-coder:30b', 'llama3.2:3b']);
    assert.deepEqual(
      addedModels.map((m) => [m.id, m.priced, m.prices]),
      [
        ['qwen3-coder:30b', 'free', { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }],
        ['llama3.2:3b', 'free', { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }],
      ],
    );
    const before = await gw.admin.wallet();
    const answer = await openai.chat.completions.create({
      model: 'qwen3-coder:30b',
      messages: [{ role: 'user', content: 'write a haiku' }],
    });
    assert.equal(answer.usage?.completion_tokens, 300);
    const [row] = await gw.admin.logs({ model: 'qwen3-coder:30b' });
    assert.deepEqual(
      [row?.status, row?.costMicro, row?.line, row?.usage.inputTokens, row?.usage.outputTokens],
      [200, 0, 'ollama', 900, 300],
    );
    assert.equal((await gw.admin.wallet()).balanceMicro, before.balanceMicro);
    const m = (await call('getModel', { params: { id: 'qwen3-coder:30b' } })).model;
    assert.deepEqual(
      [m.origin, m.vendor, m.source, m.served, m.lines, m.access['openai-chat'], m.access.anthropic],
      ['custom', 'ollama', 'line:ollama', true, ['ollama'], 'native', 'translated'],
    );
  });

  test('LM Studio with --models: the ids named, free by default; a Messages client reaches them translated', async () => {
    const { addedModels } = await call('addLine', {
      body: {
        preset: 'lmstudio',
        baseUrl: scenarioBase(mock, ''),
        models: ['qwen/qwen3-coder-30b'],
        modelMap: { 'qwen/qwen3-coder-30b': 'mock-small' },
      },
    });
    assert.deepEqual(
      addedModels.map((m) => m.priced),
      ['free'],
    );
    const anthropic = new Anthropic({
      baseURL: gw.url,
      apiKey: await gw.admin.key('lmstudio-messages'),
      maxRetries: 0,
    });
    const msg = await anthropic.messages.create({
      model: 'qwen/qwen3-coder-30b',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(msg.content[0]?.type, 'text');
    const [row] = await gw.admin.logs({ model: 'qwen/qwen3-coder-30b' });
    assert.deepEqual(
      [row?.status, row?.costMicro, row?.inboundProtocol, row?.upstreamModel],
      [200, 0, 'anthropic', 'mock-small'],
    );
  });

  test('a local server that does not answer: the line is refused, saying how to go on', async () => {
    const err = await refusal(
      call('addLine', { body: { preset: 'ollama', name: 'down', baseUrl: 'http://127.0.0.1:9/v1' } }),
    );
    assert.equal(err.code, 'no_models');
    assert.match(err.message, /did not list its own .* Is it running\? Or name its models with --models/);
  });
});

describe('a brand-new cloud model, billed exactly at its prices', () => {
  test('added with prices in micro-USD per million, then billed to the micro-USD, streaming or not', async () => {
    const prices = { input: 3_123_457, output: 15_500_001, cacheRead: 312_346 };
    const { model } = await call('addModel', {
      body: {
        id: 'acme-frontier-2',
        vendor: 'acme',
        displayName: 'Acme Frontier 2',
        contextWindow: 400_000,
        maxOutputTokens: 64_000,
        prices,
      },
    });
    assert.deepEqual(
      model.prices,
      { ...prices, cacheWrite: 3_123_457 },
      'an unpriced cache write is billed at the input price',
    );
    assert.deepEqual([model.origin, model.source, model.status, model.served], ['custom', 'user', 'active', false]);
    await gw.admin.line({
      name: 'acme',
      baseUrl: scenarioBase(mock, 'usage-in=12345,usage-out=6789,usage-cached=2345'),
      models: ['acme-frontier-2'],
      modelMap: { 'acme-frontier-2': 'mock-large' },
    });
    const expected = expectedCostMicro({ input: 12_345, cached: 2_345, output: 6_789 }, model.prices);
    // (10000 × 3.123457 + 2345 × 0.312346 + 6789 × 15.500001) / 1e6 USD, rounded up to the micro-USD.
    assert.equal(expected, Math.ceil((10_000 * 3_123_457 + 2_345 * 312_346 + 6_789 * 15_500_001) / 1e6));
    const before = await gw.admin.wallet();
    await openai.chat.completions.create({ model: 'acme-frontier-2', messages: [{ role: 'user', content: 'hello' }] });
    for await (const _ of await openai.chat.completions.create({
      model: 'acme-frontier-2',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    }))
      void _;
    const rows = await gw.admin.logs({ model: 'acme-frontier-2' });
    assert.deepEqual(
      rows.map((r) => [r.status, r.costMicro, r.upstreamModel]),
      [
        [200, expected, 'mock-large'],
        [200, expected, 'mock-large'],
      ],
    );
    assert.equal((await gw.admin.wallet()).balanceMicro, before.balanceMicro - 2 * expected);
    const listed = await openai.models.list();
    assert.ok(
      listed.data.some((m) => m.id === 'acme-frontier-2'),
      'a custom model is in the client model list',
    );
  });

  test('a line naming ids the catalogue lacks is refused with the ways to add them, or adds them as told', async () => {
    const err = await refusal(
      gw.admin.line({ name: 'nova', baseUrl: scenarioBase(mock, ''), models: ['nova-1', 'gpt-4o', 'nova-2'] }),
    );
    assert.equal(err.code, 'unknown_model');
    assert.match(
      err.message,
      /^Not in the catalogue: nova-1, nova-2\. Add them with the line: addModels with prices, or free: true \(CLI: --add-models --input USD --output USD per million tokens, or --free\)/,
    );
    const { addedModels } = await call('addLine', {
      body: {
        name: 'nova',
        protocol: 'openai-chat',
        baseUrl: scenarioBase(mock, ''),
        models: ['nova-1', 'gpt-4o', 'nova-2'],
        addModels: { prices: { input: 1_000_000, output: 4_000_000 }, vendor: 'nova', contextWindow: 32_000 },
      },
    });
    assert.deepEqual(
      addedModels.map((m) => [m.id, m.priced, m.prices.output]),
      [
        ['nova-1', 'given', 4_000_000],
        ['nova-2', 'given', 4_000_000],
      ],
    );
    const nova = (await call('getModel', { params: { id: 'nova-2' } })).model;
    assert.deepEqual(
      [nova.vendor, nova.contextWindow, nova.maxOutputTokens, nova.source, nova.nativeProtocols],
      ['nova', 32_000, 32_000, 'line:nova', ['openai-chat']],
    );
    const both = await refusal(
      call('updateLine', {
        params: { name: 'nova' },
        body: { models: ['nova-3'], addModels: { free: true, prices: { input: 1, output: 1 } } },
      }),
    );
    assert.equal(both.code, 'bad_prices');
    const updated = await call('updateLine', {
      params: { name: 'nova' },
      body: { models: ['nova-1', 'nova-3'], addModels: { free: true } },
    });
    assert.deepEqual([updated.line.models, updated.addedModels.map((m) => m.id)], [['nova-1', 'nova-3'], ['nova-3']]);
  });
});

describe("a line's upstream list, imported", () => {
  test("OpenRouter's prices are used exactly; unpriced ids are skipped unless free; known ids are only served", async () => {
    const ids = ['mock-small', 'acme/priced-model', 'acme/finely-priced', 'openrouter/auto', 'x/unpriced', 'bad id'];
    await call('addLine', {
      body: {
        preset: 'openrouter',
        name: 'router',
        baseUrl: scenarioBase(mock, listing(ids, 'openrouter')),
        models: ['gpt-4o-mini'],
        modelMap: { 'gpt-4o-mini': 'mock-small' },
        apiKeyEnv: null,
      },
    });
    const preview = await call('importLineModels', { params: { name: 'router' }, body: { dryRun: true } });
    assert.equal(preview.dryRun, true);
    assert.deepEqual(preview.served, ['acme/priced-model', 'acme/finely-priced']);
    assert.equal(
      (await call('listModels', { query: { q: 'acme/priced' } })).models.length,
      0,
      'a dry run writes nothing',
    );
    const done = await call('importLineModels', { params: { name: 'router' }, body: {} });
    assert.deepEqual(done.added, [
      {
        id: 'acme/priced-model',
        priced: 'listed',
        prices: { input: 1_250_000, output: 10_000_000, cacheRead: 125_000, cacheWrite: 1_562_500 },
      },
      // 1.2345e-7 USD per token is $0.12345 per million: exact.
      {
        id: 'acme/finely-priced',
        priced: 'listed',
        prices: { input: 123_450, output: 400_000, cacheRead: 123_450, cacheWrite: 123_450 },
      },
    ]);
    assert.deepEqual(
      done.skipped.map((s) => s.id),
      ['openrouter/auto', 'x/unpriced', 'bad id'],
    );
    assert.deepEqual(done.line.models, ['gpt-4o-mini', 'acme/priced-model', 'acme/finely-priced']);
    const free = await call('importLineModels', {
      params: { name: 'router' },
      body: { free: true, only: ['x/unpriced', 'gone'] },
    });
    assert.deepEqual(
      [free.added.map((m) => [m.id, m.priced]), free.skipped],
      [[['x/unpriced', 'free']], [{ id: 'gone', reason: "not in the upstream's list" }]],
    );
    const m = (await call('getModel', { params: { id: 'acme/priced-model' } })).model;
    assert.deepEqual(
      [m.vendor, m.displayName, m.contextWindow, m.maxOutputTokens, m.source],
      ['openrouter', 'Acme: Priced', 200_000, 32_000, 'upstream:router'],
    );
    await openai.chat.completions.create({ model: 'acme/priced-model', messages: [{ role: 'user', content: 'x' }] });
    const [row] = await gw.admin.logs({ model: 'acme/priced-model' });
    assert.equal(
      row?.costMicro,
      Math.ceil((row!.usage.inputTokens * 1_250_000 + row!.usage.outputTokens * 10_000_000) / 1e6),
    );
  });

  test('a preset line: ids its preset references are mapped to catalogue ids, not added again', async () => {
    // OpenRouter lists gpt-4o-mini as openai/gpt-4o-mini; the preset says so.
    await call('addLine', {
      body: {
        preset: 'openrouter',
        name: 'or-preset',
        baseUrl: scenarioBase(mock, listing(['openai/gpt-4o-mini', 'acme/finely-priced'], 'openrouter')),
        models: ['gpt-5.5'],
        apiKeyEnv: null,
      },
    });
    const r = await call('importLineModels', { params: { name: 'or-preset' }, body: {} });
    assert.deepEqual(
      [r.added, r.served, r.line.modelMap],
      [[], ['gpt-4o-mini', 'acme/finely-priced'], { 'gpt-5.5': 'openai/gpt-5.5', 'gpt-4o-mini': 'openai/gpt-4o-mini' }],
    );
  });
});

describe('retired models', () => {
  // A line serving gpt-4o, which the alias below sends retired ids to.
  before(() => gw.admin.line({ name: 'tmp-line', baseUrl: scenarioBase(mock, ''), models: ['gpt-4o'] }));

  test("a shut-down id is refused in the client's own shape, naming a current model", async () => {
    const chat = await openai.chat.completions
      .create({ model: 'o4-mini', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => assert.fail('served'),
        (e: unknown) => e,
      );
    assert.ok(chat instanceof OpenAI.NotFoundError, String(chat));
    assert.equal(chat.code, 'model_retired');
    assert.match(
      chat.message,
      /The model "o4-mini" was retired: its vendor no longer serves it\. Use "gpt-5\.4-mini" instead/,
    );
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: await gw.admin.key('retired-messages'), maxRetries: 0 });
    const msg = await anthropic.messages
      .create({ model: 'claude-opus-4-1', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => assert.fail('served'),
        (e: unknown) => e,
      );
    assert.ok(msg instanceof Anthropic.NotFoundError, String(msg));
    assert.deepEqual(msg.error, {
      type: 'error',
      error: {
        type: 'not_found_error',
        message:
          'The model "claude-opus-4-1" was retired: its vendor no longer serves it. Use "claude-opus-4-8" instead, or steer requests for it there with "tollgate aliases add claude-opus-4-1 claude-opus-4-8".',
      },
    });
    const [row] = await gw.admin.logs({ model: 'claude-opus-4-1' });
    assert.deepEqual([row?.status, row?.errorCode, row?.costMicro], [404, 'model_retired', 0]);
  });

  test('an alias catches a retired id; lines and aliases cannot be pointed at one', async () => {
    await call('addAlias', { body: { pattern: 'o4-mini', model: 'gpt-4o' } });
    const served = await openai.chat.completions.create({
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.ok(served.choices[0]?.message.content);
    const [row] = await gw.admin.logs({ model: 'o4-mini', limit: 1 });
    assert.deepEqual([row?.status, row?.servedModel], [200, 'gpt-4o']);
    await call('removeAlias', { params: { pattern: 'o4-mini' } });
    const line = await refusal(gw.admin.line({ name: 'old', baseUrl: scenarioBase(mock, ''), models: ['grok-3'] }));
    assert.deepEqual(
      [line.code, line.message],
      ['model_retired', '"grok-3" was retired on 2026-05-15: its vendor no longer serves it. Use grok-4.3 instead.'],
    );
    assert.equal(
      (await refusal(call('addAlias', { body: { pattern: 'x-*', model: 'claude-sonnet-4-20250514' } }))).code,
      'unknown_model',
    );
  });

  test('a model past its date: listed as retired, refused with its replacement, and doctor warns of the line that serves it', async () => {
    await call('addModel', { body: { id: 'acme-old', prices: { input: 1, output: 1 } } });
    await gw.admin.line({ name: 'acme-old-line', baseUrl: scenarioBase(mock, ''), models: ['acme-old', 'gpt-4o'] });
    await call('updateModel', {
      params: { id: 'acme-old' },
      body: { retires: '2026-01-01', replacement: 'acme-frontier-2' },
    });
    const m = (await call('getModel', { params: { id: 'acme-old' } })).model;
    assert.deepEqual([m.status, m.retires, m.replacement], ['retired', '2026-01-01', 'acme-frontier-2']);
    const err = await openai.chat.completions
      .create({ model: 'acme-old', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => assert.fail('served'),
        (e: unknown) => e as InstanceType<typeof OpenAI.NotFoundError>,
      );
    assert.match(err.message, /"acme-old" was retired on 2026-01-01.*Use "acme-frontier-2" instead/);
    assert.ok(!(await openai.models.list()).data.some((x) => x.id === 'acme-old'), 'not in the client model list');
    const doctor = await gw.admin.doctor();
    const check = doctor.checks.find((c) => c.name === 'retired models')!;
    assert.deepEqual([doctor.ok, check.ok, check.warn], [true, true, true]);
    assert.match(
      check.detail,
      /requests fail for: line acme-old-line → acme-old, retired 2026-01-01 \(use acme-frontier-2\)/,
    );
    await call('updateModel', { params: { id: 'acme-old' }, body: { retires: null, replacement: null } });
    assert.equal((await call('getModel', { params: { id: 'acme-old' } })).model.status, 'active');
  });
});

describe('the model square', () => {
  test('search and filters: q, vendor, protocol, served, group, status, origin', async () => {
    const ids = async (query: Record<string, unknown>): Promise<string[]> =>
      (await call('listModels', { query })).models.map((m) => m.id);
    assert.deepEqual(await ids({ q: 'qwen coder' }), ['qwen3-coder:30b', 'qwen/qwen3-coder-30b']);
    assert.deepEqual(await ids({ vendor: 'nova' }), ['nova-1', 'nova-2', 'nova-3']);
    const served = await ids({ served: true });
    assert.ok(served.includes('gpt-4o') && served.includes('qwen3-coder:30b') && !served.includes('gpt-5'));
    assert.ok((await ids({ served: false })).includes('gpt-5'));
    const messages = await ids({ protocol: 'anthropic' });
    assert.ok(
      messages.includes('claude-haiku-4-5') && !messages.includes('gpt-4o') && !messages.includes('qwen3-coder:30b'),
    );
    await call('addGroup', { body: { name: 'locals', models: ['qwen3-coder:30b', 'llama3.2:3b'] } });
    assert.deepEqual(await ids({ group: 'locals' }), ['qwen3-coder:30b', 'llama3.2:3b']);
    assert.equal((await refusal(call('listModels', { query: { group: 'nobody' } }))).code, 'unknown_group');
    assert.deepEqual(await ids({ status: 'retiring', vendor: 'anthropic' }), [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
    ]);
    const custom = await ids({ origin: 'custom' });
    assert.ok(custom.includes('acme-frontier-2') && !custom.includes('gpt-4o'));
    const retired = await call('listModels', { query: { status: 'retired', vendor: 'xai' } });
    assert.deepEqual(
      [retired.models, retired.retired.map((r) => r.id)],
      [[], ['grok-4', 'grok-4-0709', 'grok-code-fast-1', 'grok-3']],
    );
    assert.deepEqual(
      (await call('listModels', { query: { served: true } })).retired,
      [],
      'shut-down ids are never served',
    );
    const bad = await refusal(call('listModels', { query: { protocol: 'soap' as never } }));
    assert.equal(bad.code, 'invalid_request');
  });

  test('per model: its lines, whether each client protocol reaches it natively or translated, and its groups', async () => {
    const m = (await call('getModel', { params: { id: 'qwen3-coder:30b' } })).model;
    assert.deepEqual(
      [m.lines, m.groups, m.access],
      [
        ['ollama'],
        ['default', 'locals'],
        { 'openai-chat': 'native', anthropic: 'translated', 'openai-responses': 'translated', gemini: 'translated' },
      ],
    );
    const unserved = (await call('getModel', { params: { id: 'gpt-5' } })).model;
    assert.deepEqual(
      [unserved.served, unserved.access.gemini, unserved.status, unserved.retires],
      [false, 'unavailable', 'retiring', '2026-12-11'],
    );
  });
});
