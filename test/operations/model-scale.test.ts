/**
 * Model lists at scale: a hostile upstream list of 100,000 ids is refused whole with its count on
 * every path that reads one (test, list, probe, import, a local preset's line), nothing is written;
 * the catalogue keeps at most MAX_CUSTOM_MODELS custom models; and a config write and
 * `GET /api/models` read the config linearly in the number of models (counted reads, not time).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { MAX_LISTED_MODELS } from '../../gateway/operations/line-upstream.js';
import { MAX_CUSTOM_MODELS } from '../../gateway/operations/models.js';
import type { CustomModelRecord, GroupRecord, LineRecord } from '../../gateway/store/types.js';
import { counted } from '../helpers/counted.js';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';

const HOSTILE_IDS = 100_000;

let gw: TestGateway;
let lists: Server;
let listsUrl = '';

before(async () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `acme/m-${i}`);
  const hostile = JSON.stringify({ object: 'list', data: ids(HOSTILE_IDS).map((id) => ({ id, object: 'model' })) });
  const fair = JSON.stringify({ object: 'list', data: ids(50).map((id) => ({ id, object: 'model' })) });
  lists = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(req.url!.startsWith('/hostile/') ? hostile : fair);
  });
  await new Promise<void>((r) => lists.listen(0, '127.0.0.1', r));
  listsUrl = `http://127.0.0.1:${(lists.address() as AddressInfo).port}`;
  gw = await startGateway();
  await gw.admin.line({ name: 'hostile', baseUrl: `${listsUrl}/hostile/v1`, models: ['gpt-4o-mini'], apiKeyEnv: null });
  await gw.admin.line({ name: 'fair', baseUrl: `${listsUrl}/fair/v1`, models: ['gpt-4o-mini'], apiKeyEnv: null });
});

after(async () => {
  await gw?.close();
  await new Promise((r) => lists?.close(r));
});

function customModels(): number {
  return gw.running.gateway.config.data.models?.length ?? 0;
}

test('a list of 100,000 ids is refused with its count wherever a list is read, and nothing is written', async () => {
  const call = gw.admin.call;
  const before = customModels();
  const tooLong = new RegExp(`lists 100,000 models, more than the ${MAX_LISTED_MODELS.toLocaleString('en-US')}`);
  const imported = await refusal(call('importLineModels', { params: { name: 'hostile' }, body: { free: true } }));
  assert.deepEqual([imported.status, imported.code], [502, 'model_list_too_long']);
  assert.match(imported.message, tooLong);
  const only = await refusal(
    call('importLineModels', { params: { name: 'hostile' }, body: { free: true, only: ['acme/m-1'] } }),
  );
  assert.equal(only.code, 'model_list_too_long');
  assert.equal((await refusal(call('listLineModels', { params: { name: 'hostile' } }))).code, 'model_list_too_long');
  const probed = await refusal(
    call('probeLine', { body: { protocol: 'openai-chat', baseUrl: `${listsUrl}/hostile/v1` } }),
  );
  assert.match(probed.message, tooLong);
  const local = await refusal(
    call('addLine', { body: { preset: 'ollama', name: 'local-hostile', baseUrl: `${listsUrl}/hostile/v1` } }),
  );
  assert.match(local.message, tooLong);
  // Reachability is still answered: the test reads the list only to count it.
  const tested = await call('testLine', { params: { name: 'hostile' } });
  assert.deepEqual([tested.ok, tested.message], [true, 'reachable; 100000 models listed']);
  assert.equal(customModels(), before, 'no model was added');
  assert.equal((await call('listLines')).lines.find((l) => l.name === 'hostile')?.models.length, 1);
  // A list within the bound still imports.
  const fair = await call('importLineModels', { params: { name: 'fair' }, body: { free: true } });
  assert.equal(fair.added.length, 50);
});

test('the catalogue keeps at most MAX_CUSTOM_MODELS custom models: an add or import past it is refused whole', async () => {
  const g = gw.running.gateway;
  const now = new Date().toISOString();
  await g.config.update((d) => {
    d.models = d.models!.filter((m) => !m.id.startsWith('acme/'));
  });
  const fill = MAX_CUSTOM_MODELS - customModels() - 10;
  await g.config.update((d) => {
    for (let i = 0; i < fill; i++) d.models!.push(record(`fill/m-${i}`, now));
  });
  try {
    // 10 places left: the fair line's 50 ids do not fit, and none of them is added.
    await gw.admin.call('addLine', {
      body: {
        name: 'fair-2',
        baseUrl: `${listsUrl}/fair/v1`,
        protocol: 'openai-chat',
        models: ['gpt-4o-mini'],
        apiKeyEnv: null,
      },
    });
    const refused = await refusal(
      gw.admin.call('importLineModels', { params: { name: 'fair-2' }, body: { free: true } }),
    );
    assert.deepEqual([refused.status, refused.code], [400, 'too_many_models']);
    assert.match(refused.message, /adding 50 would pass the 20,000 it keeps/);
    const many = Array.from({ length: 11 }, (_, i) => `new/m-${i}`);
    const withLine = await refusal(
      gw.admin.call('addLine', {
        body: {
          name: 'eleven',
          baseUrl: `${listsUrl}/fair/v1`,
          protocol: 'openai-chat',
          models: many,
          addModels: { free: true },
          apiKeyEnv: null,
        },
      }),
    );
    assert.equal(withLine.code, 'too_many_models');
    for (let i = 0; i < 10; i++)
      await gw.admin.call('addModel', { body: { id: `last/m-${i}`, prices: { input: 1, output: 1 } } });
    const one = await refusal(
      gw.admin.call('addModel', { body: { id: 'last/one-more', prices: { input: 1, output: 1 } } }),
    );
    assert.equal(one.code, 'too_many_models');
    assert.equal(customModels(), MAX_CUSTOM_MODELS);
  } finally {
    await g.config.update((d) => {
      d.models = d.models!.filter((m) => !m.id.startsWith('fill/') && !m.id.startsWith('last/'));
    });
  }
});

function record(id: string, now: string): CustomModelRecord {
  return {
    id,
    vendor: 'acme',
    displayName: id,
    contextWindow: 128_000,
    maxOutputTokens: 8_000,
    nativeProtocols: ['openai-chat'],
    prices: { input: 1, output: 2, cacheRead: 1, cacheWrite: 1 },
    source: 'upstream:scale',
    createdAt: now,
    updatedAt: now,
  };
}

test('a config write and GET /api/models read the config linearly: four times the models, about four times the reads', async () => {
  const g = gw.running.gateway;
  const now = new Date().toISOString();
  const original = structuredClone({
    models: g.config.data.models!,
    lines: g.config.data.lines,
    groups: g.config.data.groups,
  });
  /** Reads of one key creation (a config write) and of one model list, with `n` custom models served by one line and named by a group. */
  const measure = async (n: number): Promise<{ write: number; list: number; listed: number }> => {
    const ids = Array.from({ length: n }, (_, i) => `scale/m-${i}`);
    const data = counted({
      models: [...structuredClone(original.models), ...ids.map((id) => record(id, now))],
      lines: [
        ...structuredClone(original.lines),
        { ...structuredClone(original.lines[0]!), id: `scale-${n}`, name: `scale-${n}`, models: ids } as LineRecord,
      ],
      groups: [
        ...structuredClone(original.groups),
        { name: `scale-${n}`, multiplier: '1', models: ids } as GroupRecord,
      ],
    });
    await g.config.update((d) => Object.assign(d, data.value));
    data.reset();
    await gw.admin.call('createKey', { body: { name: `scale-${n}` } });
    const write = data.reads();
    data.reset();
    const res = await fetch(`${gw.url}/api/models`, { headers: { authorization: `Bearer ${gw.running.adminToken}` } });
    const listed = ((await res.json()) as { models: unknown[] }).models.length;
    return { write, list: data.reads(), listed };
  };
  try {
    const small = await measure(1_000);
    const large = await measure(4_000);
    assert.equal(large.listed - small.listed, 3_000);
    const ratio = (a: number, b: number) => Math.round((b / a) * 10) / 10;
    // Linear: about 4; quadratic in the models (a scan of a line's or group's list per model): about 16.
    assert.ok(ratio(small.write, large.write) <= 5, `config write: ${small.write} → ${large.write} reads`);
    assert.ok(ratio(small.list, large.list) <= 5, `GET /api/models: ${small.list} → ${large.list} reads`);
    assert.ok(ratio(small.list, large.list) >= 3, 'the count does see the models');
  } finally {
    await g.config.update((d) => Object.assign(d, structuredClone(original)));
  }
});
