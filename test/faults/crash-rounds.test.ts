/**
 * Crash safety, repeated (docs/reliability.md): `tollgate serve` is killed with SIGKILL at a seeded
 * random moment under concurrent streaming load on all four client protocols, round after round on
 * one data dir. Every restart must work; after it `doctor` is clean, every answer a client saw
 * complete has its ledger row, and nothing stays held.
 *
 * CI runs 6 rounds; TOLLGATE_CRASH_ROUNDS=200 for the long form, TOLLGATE_SEED to vary the moments.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { askWith, PROTOCOLS } from '../helpers/clients.js';
import { spawnGateway, tempDataDir, waitFor, type ChildGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream } from '../helpers/mock-upstream.js';
import { rng } from '../helpers/seeded.js';

const ROUNDS = Number(process.env.TOLLGATE_CRASH_ROUNDS ?? 6);
const SEED = Number(process.env.TOLLGATE_SEED ?? 20261124);
const WORKERS = 6;
/** The mock upstream wants a credential on every vendor's route; the gateway reads it from here. */
const KEY_ENV = 'TOLLGATE_TEST_UPSTREAM_KEY';
process.env[KEY_ENV] = 'upstream-secret';
/** One model per upstream protocol: every client protocol reaches each, passed through or translated. */
const MODELS = ['gpt-4.1-mini', 'claude-haiku-4-5', 'gpt-5-mini', 'gemini-2.5-flash'] as const;

test(`kill -9 at seeded moments under streaming load, ${ROUNDS} rounds: every restart works, nothing acknowledged is lost`, async () => {
  const mock = await startMockUpstream();
  const dataDir = tempDataDir();
  const r = rng(SEED);
  try {
    let gw: ChildGateway = await spawnGateway(dataDir);
    const slow = 'chunk-delay=10,words=30';
    await gw.admin.line({
      name: 'chat',
      protocol: 'openai-chat',
      baseUrl: scenarioBase(mock, slow),
      models: ['gpt-4.1-mini'],
      apiKeyEnv: KEY_ENV,
    });
    await gw.admin.line({
      name: 'messages',
      protocol: 'anthropic',
      baseUrl: scenarioOrigin(mock, slow),
      models: ['claude-haiku-4-5'],
      apiKeyEnv: KEY_ENV,
    });
    await gw.admin.line({
      name: 'responses',
      protocol: 'openai-responses',
      baseUrl: scenarioBase(mock, slow),
      models: ['gpt-5-mini'],
      apiKeyEnv: KEY_ENV,
    });
    await gw.admin.line({
      name: 'gemini',
      protocol: 'gemini',
      baseUrl: scenarioOrigin(mock, slow),
      models: ['gemini-2.5-flash'],
      apiKeyEnv: KEY_ENV,
    });
    await gw.admin.topup(100);
    let acknowledged = new Map<string, string>();
    let totalAcknowledged = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      if (round > 0) {
        gw = await spawnGateway(dataDir);
        const report = await gw.admin.doctor();
        assert.equal(report.ok, true, `round ${round}: ${JSON.stringify(report.checks)}`);
        const rows = await gw.admin.logs({ key: `round-${round - 1}` });
        const logged = new Map(rows.map((row) => [row.requestId, row.status]));
        for (const [id, what] of acknowledged)
          assert.equal(
            logged.get(id),
            200,
            `round ${round - 1}: ${what} (${id}) was answered in full but has no 200 row`,
          );
        assert.equal((await gw.admin.wallet()).heldMicro, 0);
      }
      if (round === ROUNDS) break;
      const key = await gw.admin.key(`round-${round}`);
      acknowledged = new Map();
      let killed = false;
      const failures: string[] = [];
      const workers = Array.from({ length: WORKERS }, async (_, w) => {
        // A source per worker, so each one's sequence of requests is the seed's whatever the timing.
        const r = rng(SEED + round * 100 + w);
        for (let i = 0; !killed; i++) {
          const protocol = r.pick(PROTOCOLS);
          const model = r.pick(MODELS);
          const stream = r.chance(0.75);
          const what = `${protocol} → ${model}${stream ? ' (stream)' : ''} #${w}.${i}`;
          try {
            const answer = await askWith(protocol, gw.url, key, {
              model,
              stream,
              prompt: `round ${round} worker ${w} request ${i}`,
            });
            if (!answer.requestId || !answer.text.startsWith('w1 w2'))
              failures.push(`${what}: ${answer.requestId || 'no x-request-id'}, "${answer.text.slice(0, 40)}"`);
            acknowledged.set(answer.requestId, what);
          } catch (err) {
            // Requests cut by the kill fail; that is the point. Anything else before it is a defect.
            if (!killed) failures.push(`${what}: ${String(err)}`);
          }
        }
      });
      // The moment: after a seeded number of complete answers, plus a seeded pause.
      const answersFirst = r.int(1, 4);
      await waitFor(
        () => acknowledged.size >= answersFirst || failures.length > 0,
        `round ${round}: answers before the kill`,
        30_000,
      );
      await sleep(r.int(0, 250));
      killed = true;
      gw.child.kill('SIGKILL');
      assert.equal(await gw.exited, null);
      await Promise.all(workers);
      assert.deepEqual(failures, [], `round ${round}`);
      totalAcknowledged += acknowledged.size;
    }
    gw.child.kill('SIGTERM');
    await gw.exited;
    assert.ok(totalAcknowledged >= ROUNDS, `${totalAcknowledged} answers over ${ROUNDS} rounds`);
  } finally {
    await mock.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
