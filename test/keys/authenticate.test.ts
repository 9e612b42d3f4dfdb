import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authenticate, extractKey } from '../../gateway/keys/authenticate.js';
import { generateSecret, hashSecret } from '../../gateway/keys/secret.js';
import type { KeyRecord } from '../../gateway/store/types.js';
import { GatewayError } from '../../gateway/core/errors.js';

describe('extractKey', () => {
  test('reads a Bearer token, with the scheme in any case', () => {
    assert.equal(extractKey({ authorization: 'Bearer sk-abc' }), 'sk-abc');
    assert.equal(extractKey({ authorization: 'bearer sk-abc' }), 'sk-abc');
    assert.equal(extractKey({ authorization: 'BEARER sk-abc' }), 'sk-abc');
  });

  test('accepts a bare key in Authorization', () => {
    assert.equal(extractKey({ authorization: 'sk-abc' }), 'sk-abc');
  });

  test('reads x-api-key, x-goog-api-key and ?key=', () => {
    assert.equal(extractKey({ xApiKey: 'sk-x' }), 'sk-x');
    assert.equal(extractKey({ xGoogApiKey: 'sk-g' }), 'sk-g');
    assert.equal(extractKey({ queryKey: 'sk-q' }), 'sk-q');
    assert.equal(extractKey({}), undefined);
  });

  test('prefers Authorization, then x-api-key, then x-goog-api-key, then ?key=', () => {
    const all = { authorization: 'Bearer sk-a', xApiKey: 'sk-x', xGoogApiKey: 'sk-g', queryKey: 'sk-q' };
    assert.equal(extractKey(all), 'sk-a');
    assert.equal(extractKey({ ...all, authorization: undefined }), 'sk-x');
    assert.equal(extractKey({ ...all, authorization: undefined, xApiKey: undefined }), 'sk-g');
    assert.equal(extractKey({ queryKey: 'sk-q' }), 'sk-q');
  });

  test('leaves whitespace in place for authenticate to report', () => {
    assert.equal(extractKey({ authorization: 'Bearer  sk-abc' }), ' sk-abc');
    assert.equal(extractKey({ xApiKey: 'sk-abc\n' }), 'sk-abc\n');
  });
});

describe('authenticate', () => {
  const NOW = Date.parse('2026-03-01T12:00:00.000Z');
  const secrets = {
    ok: generateSecret(),
    off: generateSecret(),
    gone: generateSecret(),
    old: generateSecret(),
    later: generateSecret(),
  };
  const record = (name: string, secret: string, over: Partial<KeyRecord> = {}): KeyRecord => ({
    id: `id-${name}`,
    name,
    hash: hashSecret(secret),
    last4: secret.slice(-4),
    group: 'default',
    quotaMicro: null,
    expiresAt: null,
    state: 'enabled',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...over,
  });
  const keys = [
    record('laptop', secrets.ok),
    record('old-ci', secrets.off, { state: 'disabled' }),
    record('leaked', secrets.gone, { state: 'deleted' }),
    record('trial', secrets.old, { expiresAt: '2026-02-01T00:00:00.000Z' }),
    record('until-april', secrets.later, { expiresAt: '2026-04-01T00:00:00.000Z' }),
  ];
  const byHash = new Map(keys.map((k) => [k.hash, k]));

  /** Returns the 401's code after checking its status and message. */
  function reject(presented: string | undefined, message: RegExp): string {
    let code = '';
    assert.throws(
      () => authenticate(presented, byHash, NOW),
      (err) => {
        assert.ok(err instanceof GatewayError);
        assert.equal(err.status, 401);
        assert.match(err.message, message);
        code = err.code;
        return true;
      },
    );
    return code;
  }

  test('a valid key returns its record', () => {
    assert.equal(authenticate(secrets.ok, byHash, NOW), keys[0]);
    assert.equal(authenticate(secrets.later, byHash, NOW), keys[4]);
  });

  test('missing key', () => {
    assert.equal(
      reject(undefined, /No API key was sent.*Authorization: Bearer.*x-api-key.*x-goog-api-key/),
      'missing_api_key',
    );
    assert.equal(reject('', /No API key was sent/), 'missing_api_key');
  });

  test('whitespace around or inside the key', () => {
    for (const damaged of [
      ` ${secrets.ok}`,
      `${secrets.ok}\n`,
      `${secrets.ok}\r\n`,
      `\t${secrets.ok}`,
      `${secrets.ok.slice(0, 20)} ${secrets.ok.slice(20)}`,
      `${secrets.ok}\u00a0`,
    ]) {
      assert.equal(reject(damaged, /spaces or line breaks/), 'api_key_whitespace', JSON.stringify(damaged));
    }
  });

  test('not a Tollgate key', () => {
    assert.equal(
      reject('AIzaSyD-notours', /not a Tollgate key: Tollgate keys start with "sk-"/),
      'api_key_not_tollgate',
    );
    assert.equal(reject(`pk-${secrets.ok.slice(3)}`, /start with "sk-"/), 'api_key_not_tollgate');
  });

  test('truncated key', () => {
    assert.equal(
      reject(secrets.ok.slice(0, 40), /40 characters long but Tollgate keys have 51: it was cut short/),
      'api_key_truncated',
    );
    assert.equal(reject(secrets.ok.slice(0, 50), /50 characters long/), 'api_key_truncated');
    assert.equal(reject('sk-', /3 characters long/), 'api_key_truncated');
  });

  test('unknown full-length key', () => {
    assert.equal(reject(generateSecret(), /not known to this Tollgate.*tollgate keys create/), 'invalid_api_key');
    assert.equal(reject(`${secrets.ok}X`, /not known to this Tollgate/), 'invalid_api_key');
  });

  test('disabled, deleted and expired keys are named', () => {
    assert.equal(reject(secrets.off, /"old-ci" is disabled.*tollgate keys enable old-ci/), 'api_key_disabled');
    assert.equal(reject(secrets.gone, /"leaked" was deleted/), 'api_key_deleted');
    assert.equal(reject(secrets.old, /"trial" expired at 2026-02-01T00:00:00.000Z/), 'api_key_expired');
  });

  test('a key expires at its expiry instant, not a millisecond later', () => {
    const at = Date.parse('2026-04-01T00:00:00.000Z');
    assert.equal(authenticate(secrets.later, byHash, at - 1), keys[4]);
    assert.throws(() => authenticate(secrets.later, byHash, at), { code: 'api_key_expired' });
  });

  test('every kind of failure has its own code', () => {
    const codes = [
      reject(undefined, /./),
      reject(` ${secrets.ok}`, /./),
      reject('abc123', /./),
      reject(secrets.ok.slice(0, 30), /./),
      reject(generateSecret(), /./),
      reject(secrets.off, /./),
      reject(secrets.gone, /./),
      reject(secrets.old, /./),
    ];
    assert.equal(new Set(codes).size, codes.length, codes.join(', '));
  });
});
