/** A key's last use and spend per day (GET /api/keys/usage), and the Playground's one key of its own. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RequestRow } from '../../gateway/store/ledger.js';
import { hashSecret } from '../../gateway/keys/secret.js';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';
import { ledgerRow } from '../helpers/ledger-rows.js';

const DAY = 86_400_000;
let gw: TestGateway;

function row(i: number, keyName: string, ts: number, costMicro: number): RequestRow {
  return ledgerRow({ requestId: `req_usage_${i}`, ts, keyId: `key_${keyName}`, keyName, costMicro });
}

const now = Date.now();
// Rows of "ci" over the last 40 days (some before a 30-day period), one of "laptop" today, none of "idle".
const ROWS = [
  // Oldest first, as the gateway writes them (a row is written when its request settles).
  ...Array.from({ length: 40 }, (_, i) => 39 - i).map((d) => row(d, 'ci', now - d * DAY - 7 * 60_000, 1000 + d)),
  row(100, 'laptop', now - 60_000, 5),
];

before(async () => {
  gw = await startGateway();
  for (const name of ['ci', 'laptop', 'idle']) await gw.admin.key(name);
  gw.running.gateway.ledger.topup(10_000_000, 'test');
  for (const r of ROWS) await gw.running.gateway.ledger.settle(r);
});
after(async () => {
  await gw.close();
});

/** The oracle: each key's spend per day, days starting at `tz` minutes east of UTC, from the rows in memory. */
function expected(name: string, days: number, tz: number): number[] {
  const offset = tz * 60_000;
  const since = Math.floor((now + offset) / DAY) * DAY - offset - (days - 1) * DAY;
  const out = new Array<number>(days).fill(0);
  for (const r of ROWS) {
    const i = Math.floor((r.ts - since) / DAY);
    if (r.keyName === name && i >= 0 && i < days) out[i]! += r.costMicro;
  }
  return out;
}

test('each key: its last use and its spend per day over the period, today last, in the caller’s days', async () => {
  // Whole-hour offsets read the hourly rollup; a half-hour one reads the rows; both must agree with the oracle.
  for (const [days, tz] of [
    [30, 0],
    [30, 60],
    [7, 330],
    [1, -300],
  ] as const) {
    const u = await gw.admin.call('getKeyUsage', { query: { days, tz } });
    assert.equal(u.days, days);
    assert.deepEqual(
      u.keys.map((k) => k.name),
      ['ci', 'laptop', 'idle'],
    );
    for (const k of u.keys) {
      const daily = expected(k.name, days, tz);
      assert.deepEqual(k.dailyMicro, daily, `${k.name}, ${days} days at tz ${tz}`);
      assert.equal(
        k.costMicro,
        daily.reduce((a, b) => a + b, 0),
      );
    }
  }
  const u = await gw.admin.call('getKeyUsage', { query: {} });
  assert.equal(u.days, 30);
  const byName = new Map(u.keys.map((k) => [k.name, k]));
  assert.equal(byName.get('ci')!.lastUsedAt, now - 7 * 60_000);
  assert.equal(byName.get('ci')!.requests, 30);
  assert.equal(byName.get('laptop')!.lastUsedAt, now - 60_000);
  assert.deepEqual(
    [byName.get('idle')!.lastUsedAt, byName.get('idle')!.requests, byName.get('idle')!.costMicro],
    [null, 0, 0],
  );
  const bad = await refusal(gw.admin.call('getKeyUsage', { query: { days: 0 } }));
  assert.equal(bad.status, 400);
});

test('the Playground has one key of its own: made once, then the same key with a new secret', async () => {
  await gw.admin.key('playground'); // a person's key already has the name
  const first = await gw.admin.call('playgroundKey');
  assert.equal(first.key.name, 'playground-2');
  assert.equal(first.key.madeBy, 'playground');
  const second = await gw.admin.call('playgroundKey');
  assert.equal(second.key.id, first.key.id);
  assert.notEqual(second.secret, first.secret);
  const record = gw.running.gateway.config.data.keys.find((k) => k.id === first.key.id)!;
  assert.equal(record.hash, hashSecret(second.secret), 'only the newest secret is valid');
  // It sends like any key: the old secret is refused, the new one reaches billing.
  const refusedOld = await gw
    .openai(first.secret)
    .models.list()
    .then(
      () => 200,
      (e: { status: number }) => e.status,
    );
  assert.equal(refusedOld, 401);
  const keys = (await gw.admin.call('listKeys')).keys;
  assert.equal(keys.filter((k) => k.madeBy === 'playground').length, 1);
  assert.equal(keys.find((k) => k.name === 'playground')!.madeBy, null);
  // Deleted, the next call makes a new one.
  await gw.admin.call('deleteKey', { params: { name: 'playground-2' } });
  const third = await gw.admin.call('playgroundKey');
  assert.notEqual(third.key.id, first.key.id);
  assert.equal(third.key.name, 'playground-2');
});
