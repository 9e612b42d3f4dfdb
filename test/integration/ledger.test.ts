/** The ledger invariant (top-ups − balance = Σ logged costs) under concurrency and across kill -9. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { spawnGateway, startGateway, tempDataDir, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});

after(async () => {
  await mock.close();
});

test('100 concurrent requests against a balance that covers only some: only 200 and 402, nothing unbilled', async () => {
  const gw: TestGateway = await startGateway();
  try {
    // Each request costs exactly 10 × $0.15/M + 1000 × $0.60/M = 601.5 → 602 micro-USD.
    await gw.admin.line({
      name: 'l',
      baseUrl: scenarioBase(mock, 'usage-in=10,usage-out=1000,delay=30'),
      models: ['gpt-4o-mini'],
    });
    await gw.admin.topup(0.03);
    const c = gw.openai(await gw.admin.key('crowd'));
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        try {
          const messages = [{ role: 'user' as const, content: `request ${i}` }];
          if (i % 2 === 1) await c.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: 1000 });
          // Read each stream to its end: the request is over only then.
          else
            for await (const _ of await c.chat.completions.create({
              model: 'gpt-4o-mini',
              messages,
              max_tokens: 1000,
              stream: true,
            }))
              void _;
          return 200;
        } catch (err) {
          return err instanceof OpenAI.APIError ? (err.status ?? -1) : -2;
        }
      }),
    );
    const ok = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 402).length;
    assert.equal(ok + refused, 100, `unexpected statuses: ${statuses.filter((s) => s !== 200 && s !== 402).join(',')}`);
    assert.ok(ok >= 10 && refused >= 10, `ok ${ok}, refused ${refused}`);
    // Every request has ended, and a row is written before its answer ends: no waiting.
    const rows = await gw.admin.logs({ key: 'crowd' });
    assert.equal(rows.length, 100);
    assert.equal(rows.filter((r) => r.status === 200).length, ok);
    assert.deepEqual(new Set(rows.filter((r) => r.status === 200).map((r) => r.costMicro)), new Set([602]));
    const w = await gw.admin.wallet();
    assert.equal(w.spentMicro, ok * 602);
    assert.ok(w.balanceMicro >= 0, `balance ${w.balanceMicro}`);
    assert.ok(w.balanceMicro < 602 * 2, 'the balance was used up, not refused early');
    assert.equal(w.heldMicro, 0);
    assert.equal((await gw.admin.doctor()).ok, true);
  } finally {
    await gw.close();
  }
});

test('kill -9 mid-load, then restart: the invariant holds and nothing acknowledged is lost', async () => {
  const dataDir = tempDataDir();
  try {
    const first = await spawnGateway(dataDir);
    await first.admin.line({
      name: 'l',
      baseUrl: scenarioBase(mock, 'chunk-delay=20,words=30'),
      models: ['gpt-4o-mini'],
    });
    await first.admin.topup(1);
    const secret = await first.admin.key('load');
    const c = new OpenAI({ baseURL: `${first.url}/v1`, apiKey: secret, maxRetries: 0 });
    let completed = 0;
    const load = Array.from({ length: 40 }, async (_, i) => {
      await sleep(i * 40);
      try {
        const s = await c.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: `n ${i}` }],
          stream: i % 2 === 0,
        });
        if (i % 2 === 0) for await (const _ of s as AsyncIterable<unknown>) void _;
        completed++;
      } catch {
        // Requests cut by the crash fail; that is the point.
      }
    });
    // Kill it mid-load: once some requests have completed and others are still streaming.
    const deadline = Date.now() + 10_000;
    while (completed < 3 && Date.now() < deadline) await sleep(10);
    first.child.kill('SIGKILL');
    await Promise.all(load);
    assert.equal(await first.exited, null);
    assert.ok(completed >= 1 && completed < 40, `completed ${completed}`);

    const second = await spawnGateway(dataDir);
    try {
      const report = await second.admin.doctor();
      assert.equal(report.ok, true, JSON.stringify(report.checks));
      const rows = await second.admin.logs({ key: 'load' });
      // Every request the client saw complete was logged before its answer ended.
      assert.ok(
        rows.filter((r) => r.status === 200).length >= completed,
        `${rows.length} rows, ${completed} completed`,
      );
      const w = await second.admin.wallet();
      assert.equal(
        w.topupsMicro - w.balanceMicro,
        rows.reduce((s, r) => s + r.costMicro, 0),
      );
      // The restarted gateway serves at once.
      const c2 = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: secret, maxRetries: 0 });
      const r = await c2.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'after' }],
      });
      assert.match(r.choices[0]!.message.content!, /^w1 /);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
