import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Reservations, type ReserveInput } from '../../gateway/billing/reservations.js';
import { GatewayError } from '../../gateway/core/errors.js';

const req = (over: Partial<ReserveInput>): ReserveInput => ({
  keyId: 'k1',
  keyName: 'ci-bot',
  amountMicro: 1_000_000,
  balanceMicro: 100_000_000,
  quotaMicro: null,
  keyUsedMicro: 0,
  ...over,
});

describe('wallet', () => {
  test('a request the wallet cannot cover is a 402 naming the balance and the amount needed', () => {
    const r = new Reservations();
    assert.throws(
      () => r.reserve(req({ balanceMicro: 1_000_000, amountMicro: 1_500_000 })),
      (err) => {
        assert.ok(err instanceof GatewayError);
        assert.equal(err.status, 402);
        assert.equal(err.code, 'insufficient_balance');
        assert.match(err.message, /the wallet has \$1\.00, and this request needs up to \$1\.50/);
        return true;
      },
    );
    assert.equal(r.heldMicro(), 0);
  });

  test('the whole free balance may be reserved, one micro-USD more may not', () => {
    const r = new Reservations();
    r.reserve(req({ balanceMicro: 2_000_000, amountMicro: 2_000_000 }));
    assert.equal(r.heldMicro(), 2_000_000);
    assert.throws(() => r.reserve(req({ balanceMicro: 2_000_000, amountMicro: 1 })), { code: 'insufficient_balance' });
  });

  test('holds add up across concurrent requests, so the N+1th is refused and says what is held', () => {
    const r = new Reservations();
    const balanceMicro = 10_000_000;
    for (let i = 0; i < 3; i++) r.reserve(req({ keyId: `k${i}`, balanceMicro, amountMicro: 3_000_000 }));
    assert.equal(r.heldMicro(), 9_000_000);
    assert.throws(() => r.reserve(req({ keyId: 'k9', balanceMicro, amountMicro: 3_000_000 })), {
      status: 402,
      code: 'insufficient_balance',
      message: /wallet has \$10\.00 \(\$9\.00 of it is held for requests in flight\).*needs up to \$3\.00/,
    });
    assert.equal(r.heldMicro(), 9_000_000);
  });

  test('the wallet is checked before the key quota', () => {
    const r = new Reservations();
    assert.throws(() => r.reserve(req({ balanceMicro: 0, quotaMicro: 0 })), { code: 'insufficient_balance' });
  });
});

describe('key quota', () => {
  test('a request over what is left of the quota is a 402 naming the key and what is left', () => {
    const r = new Reservations();
    assert.throws(
      () => r.reserve(req({ quotaMicro: 5_000_000, keyUsedMicro: 4_000_000, amountMicro: 1_500_000 })),
      (err) => {
        assert.ok(err instanceof GatewayError);
        assert.equal(err.status, 402);
        assert.equal(err.code, 'key_quota_exceeded');
        assert.match(
          err.message,
          /the key "ci-bot" has used \$4\.00 of its \$5\.00 quota, \$1\.00 left, and this request needs up to \$1\.50/,
        );
        return true;
      },
    );
    assert.equal(r.keyHeldMicro('k1'), 0);
    assert.equal(r.heldMicro(), 0);
  });

  test('holds of one key add up against its quota; other keys are unaffected', () => {
    const r = new Reservations();
    const q = { quotaMicro: 1_000_000, amountMicro: 250_000 };
    for (let i = 0; i < 4; i++) r.reserve(req(q));
    assert.equal(r.keyHeldMicro('k1'), 1_000_000);
    assert.throws(() => r.reserve(req(q)), {
      code: 'key_quota_exceeded',
      message: /with \$1\.00 held for requests in flight, \$0\.00 left/,
    });
    r.reserve(req({ ...q, keyId: 'k2', keyName: 'other' }));
    assert.equal(r.keyHeldMicro('k2'), 250_000);
    assert.equal(r.heldMicro(), 1_250_000);
  });

  test('a key without a quota is limited only by the wallet', () => {
    const r = new Reservations();
    r.reserve(req({ quotaMicro: null, keyUsedMicro: 1_000_000_000, amountMicro: 50_000_000 }));
    r.reserve(req({ quotaMicro: null, keyUsedMicro: 1_000_000_000, amountMicro: 50_000_000 }));
    assert.equal(r.keyHeldMicro('k1'), 100_000_000);
    assert.throws(() => r.reserve(req({ quotaMicro: null, amountMicro: 1 })), { code: 'insufficient_balance' });
  });
});

describe('release', () => {
  test('frees both the wallet and the key hold, and is idempotent', () => {
    const r = new Reservations();
    const a = r.reserve(req({ amountMicro: 700_000, quotaMicro: 1_000_000 }));
    const b = r.reserve(req({ amountMicro: 200_000, quotaMicro: 1_000_000 }));
    assert.throws(() => r.reserve(req({ amountMicro: 700_000, quotaMicro: 1_000_000 })), {
      code: 'key_quota_exceeded',
    });
    r.release(a);
    r.release(a);
    assert.equal(a.released, true);
    assert.equal(r.heldMicro(), 200_000);
    assert.equal(r.keyHeldMicro('k1'), 200_000);
    const c = r.reserve(req({ amountMicro: 700_000, quotaMicro: 1_000_000 }));
    r.release(b);
    r.release(c);
    r.release(b);
    assert.equal(r.heldMicro(), 0);
    assert.equal(r.keyHeldMicro('k1'), 0);
  });

  test('frees the wallet for the request that was refused', () => {
    const r = new Reservations();
    const a = r.reserve(req({ balanceMicro: 1_000_000, amountMicro: 1_000_000 }));
    assert.throws(() => r.reserve(req({ keyId: 'k2', balanceMicro: 1_000_000, amountMicro: 1_000_000 })), {
      code: 'insufficient_balance',
    });
    r.release(a);
    const b = r.reserve(req({ keyId: 'k2', balanceMicro: 1_000_000, amountMicro: 1_000_000 }));
    assert.deepEqual(b, { keyId: 'k2', amountMicro: 1_000_000, released: false });
  });
});
