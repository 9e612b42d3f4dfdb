/** The wallet's ceiling: top-ups and adjustments refused with a 400 before sums stop being exact integers. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_BALANCE_MICRO } from '../../gateway/operations/wallet.js';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
before(async () => {
  gw = await startGateway();
});
after(async () => {
  await gw.close();
});

test('top-ups and adjustments past the ceiling are refused with 400, never a 500; the ledger stays exact', async () => {
  const statuses: (number | string)[] = [];
  for (let i = 0; i < 10; i++) {
    try {
      await gw.admin.client.call('topUp', { body: { amountMicro: 1_000_000_000_000_000 } });
      statuses.push(200);
    } catch (err) {
      const e = err as { status: number; code: string };
      statuses.push(`${e.status} ${e.code}`);
    }
  }
  assert.deepEqual(statuses, [200, ...Array(9).fill('400 amount_too_large')]);
  const adjust = await refusal(
    gw.admin.client.call('adjustWallet', { body: { amountMicro: 1, note: 'entered twice' } }),
  );
  assert.deepEqual([adjust.status, adjust.code], [400, 'amount_too_large']);
  const w = await gw.admin.wallet();
  assert.equal(w.balanceMicro, MAX_BALANCE_MICRO);
  assert.ok(Number.isSafeInteger(w.topupsMicro));
  assert.equal(
    (await gw.admin.client.call('adjustWallet', { body: { amountMicro: -5, note: 'fix' } })).balanceMicro,
    MAX_BALANCE_MICRO - 5,
  );
  assert.equal(gw.running.gateway.ledger.checkInvariant().ok, true);
});
