/**
 * Requests that could poison the ledger's group commit cost nothing but themselves: a catalogue
 * model whose id is a member of Object.prototype (constructor, toString, valueOf, hasOwnProperty)
 * is served and billed like any other model, among many concurrent ordinary requests, and a wallet
 * adjustment made while streams are in flight cannot take the money they hold. Through the real
 * gateway with the OpenAI SDK; the doctor is clean after each.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { refusal, startGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
});

after(async () => {
  await mock.close();
});

const RESERVED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'];

test('six requests for models named like Object.prototype members among 180 concurrent ordinary ones: every one answered and billed, the doctor clean', async () => {
  const gw = await startGateway();
  try {
    for (const id of RESERVED) {
      await gw.admin.client.call('addModel', { body: { id, prices: { input: 1_000_000, output: 2_000_000 } } });
    }
    await gw.admin.line({
      name: 'mixed',
      baseUrl: scenarioBase(mock, 'words=5,delay=5'),
      models: ['gpt-4o-mini', ...RESERVED],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    });
    await gw.admin.topup(100);
    const client = gw.openai(await gw.admin.key('crowd'));
    const poisoned = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'constructor', 'valueOf'];
    const models = Array.from({ length: 186 }, (_, i) => (i % 31 === 7 ? poisoned[(i - 7) / 31]! : 'gpt-4o-mini'));
    assert.equal(models.filter((m) => m !== 'gpt-4o-mini').length, 6);
    const outcomes = await Promise.all(
      models.map(async (model, i) => {
        const messages = [{ role: 'user' as const, content: `request ${i}` }];
        try {
          if (i % 2 === 0) {
            const r = await client.chat.completions.create({ model, messages, max_tokens: 50 });
            return { model, status: 200, upstream: r.model };
          }
          let text = '';
          for await (const c of await client.chat.completions.create({ model, messages, max_tokens: 50, stream: true }))
            text += c.choices[0]?.delta.content ?? '';
          return { model, status: text ? 200 : -1, upstream: model };
        } catch (err) {
          return { model, status: err instanceof OpenAI.APIError ? (err.status ?? -2) : -3, upstream: String(err) };
        }
      }),
    );
    const failed = outcomes.filter((o) => o.status !== 200);
    assert.deepEqual(failed, [], 'every request answered');
    const rows = await gw.admin.logs({ key: 'crowd' });
    assert.equal(rows.length, 186);
    assert.ok(rows.every((r) => r.status === 200 && r.costMicro > 0));
    const reserved = rows.filter((r) => RESERVED.includes(r.model ?? ''));
    assert.equal(reserved.length, 6);
    // The upstream was asked for the model by its own id, not for whatever Object.prototype holds.
    assert.ok(reserved.every((r) => r.upstreamModel === r.model && r.servedModel === r.model));
    const doctor = await gw.admin.doctor();
    assert.ok(doctor.ok, JSON.stringify(doctor));
    assert.equal((await gw.admin.wallet()).heldMicro, 0);
  } finally {
    await gw.close();
  }
});

test('six rows SQLite refuses among 180 concurrent ordinary ones fail alone: each told why, the others answered and billed, every request with its one row', async () => {
  const gw = await startGateway();
  try {
    await gw.admin.line({
      name: 'mixed',
      baseUrl: scenarioBase(mock, 'words=5,delay=5'),
      models: ['gpt-4o-mini', 'gpt-4.1-mini'],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    });
    await gw.admin.topup(100);
    // Whatever makes SQLite refuse one row at the write: here a trigger, for the charged rows of one model.
    const db = new Database(join(gw.dataDir, 'ledger.sqlite'));
    db.exec(`CREATE TRIGGER poison BEFORE INSERT ON requests WHEN NEW.model = 'gpt-4.1-mini' AND NEW.cost_micro > 0
      BEGIN SELECT RAISE(ABORT, 'poisoned row'); END;`);
    db.close();
    const client = gw.openai(await gw.admin.key('crowd'));
    const models = Array.from({ length: 186 }, (_, i) => (i % 31 === 7 ? 'gpt-4.1-mini' : 'gpt-4o-mini'));
    const outcomes = await Promise.all(
      models.map(async (model, i) => {
        try {
          await client.chat.completions.create({
            model,
            messages: [{ role: 'user', content: `request ${i}` }],
            max_tokens: 50,
          });
          return { model, status: 200, message: '' };
        } catch (err) {
          return { model, status: err instanceof OpenAI.APIError ? (err.status ?? -1) : -2, message: String(err) };
        }
      }),
    );
    const ordinary = outcomes.filter((o) => o.model === 'gpt-4o-mini');
    assert.deepEqual(
      ordinary.filter((o) => o.status !== 200),
      [],
    );
    const poisoned = outcomes.filter((o) => o.model === 'gpt-4.1-mini');
    assert.equal(poisoned.length, 6);
    for (const o of poisoned) {
      assert.equal(o.status, 500);
      assert.match(o.message, /ledger refused this request's row \(poisoned row\)/);
    }
    const rows = await gw.admin.logs({ key: 'crowd' });
    assert.equal(rows.length, 186, 'every request has its one row');
    assert.ok(rows.filter((r) => r.model === 'gpt-4o-mini').every((r) => r.status === 200 && r.costMicro > 0));
    const refused = rows.filter((r) => r.model === 'gpt-4.1-mini');
    assert.ok(refused.every((r) => r.status === 500 && r.costMicro === 0 && r.errorCode === 'ledger_write_failed'));
    // The money adds up; the doctor names the refused writes and nothing else.
    const doctor = await gw.admin.doctor();
    assert.deepEqual(
      doctor.checks.filter((c) => !c.ok).map((c) => c.name),
      ['ledger writes'],
      JSON.stringify(doctor),
    );
    assert.equal((await gw.admin.wallet()).heldMicro, 0);
  } finally {
    await gw.close();
  }
});

test('a negative adjustment while requests stream may not take what they hold; every stream settles, the doctor clean', async () => {
  const gw = await startGateway();
  try {
    // 30 events 40 ms apart: each stream is in flight for over a second.
    await gw.admin.line({
      name: 'slow',
      baseUrl: scenarioBase(mock, 'words=30,chunk-delay=40,usage-in=1000,usage-out=1000'),
      models: ['gpt-4o-mini'],
      apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
    });
    await gw.admin.topup(0.05);
    const client = gw.openai(await gw.admin.key('tool'));
    let firstEvents = 0;
    let started!: () => void;
    const allStarted = new Promise<void>((resolve) => (started = resolve));
    const streams = Array.from({ length: 8 }, async (_, i) => {
      const s = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `stream ${i}` }],
        max_tokens: 4000,
        stream: true,
        stream_options: { include_usage: true },
      });
      let first = true;
      for await (const _ of s) {
        if (first && ++firstEvents === 8) started();
        first = false;
      }
    });
    await allStarted;
    const w = await gw.admin.wallet();
    assert.ok(w.heldMicro > 0, 'the streams hold money');
    // "A top-up entered twice": take the whole balance back while the streams run.
    const err = await refusal(
      gw.admin.client.call('adjustWallet', { body: { amountMicro: -w.balanceMicro, note: 'top-up entered twice' } }),
    );
    assert.equal(err.status, 400);
    assert.match(err.message, /held for requests in flight/);
    // What is free may be taken.
    const after = await gw.admin.client.call('adjustWallet', {
      body: { amountMicro: -(w.balanceMicro - w.heldMicro), note: 'the free part' },
    });
    assert.equal(after.balanceMicro, w.heldMicro);
    await Promise.all(streams);
    const rows = await gw.admin.logs({ key: 'tool' });
    assert.equal(rows.length, 8);
    assert.ok(
      rows.every((r) => r.status === 200 && r.costMicro > 0),
      JSON.stringify(rows.map((r) => r.status)),
    );
    const doctor = await gw.admin.doctor();
    assert.ok(doctor.ok, JSON.stringify(doctor));
    const end = await gw.admin.wallet();
    assert.equal(end.heldMicro, 0);
    assert.ok(end.balanceMicro >= 0);
  } finally {
    await gw.close();
  }
});
