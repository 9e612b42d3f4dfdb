/** The key ring follows the config: a key added, disabled or deleted through the config store is seen at once. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KeyRing } from '../../gateway/keys/keyring.js';
import { generateSecret, hashSecret, lastFour } from '../../gateway/keys/secret.js';
import { ConfigStore } from '../../gateway/store/config.js';
import type { KeyRecord } from '../../gateway/store/types.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-keyring-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function record(secret: string, name: string): KeyRecord {
  return {
    id: `key_${name}`,
    name,
    hash: hashSecret(secret),
    last4: lastFour(secret),
    group: 'default',
    quotaMicro: null,
    expiresAt: null,
    state: 'enabled',
    createdAt: new Date().toISOString(),
  };
}

test('every change made through the config store reaches the index, with nothing to remember', async () => {
  const config = await ConfigStore.open(dir);
  const ring = new KeyRing(config);
  const secret = generateSecret();
  assert.throws(() => ring.authenticate({ authorization: `Bearer ${secret}` }), { code: 'invalid_api_key' });
  await config.update((d) => void d.keys.push(record(secret, 'laptop')));
  assert.equal(ring.authenticate({ authorization: `Bearer ${secret}` }).name, 'laptop');
  await config.update((d) => void (d.keys[0]!.state = 'disabled'));
  assert.throws(() => ring.authenticate({ xApiKey: secret }), { code: 'api_key_disabled' });
  await config.update((d) => void (d.keys = []));
  assert.throws(() => ring.authenticate({ xApiKey: secret }), { code: 'invalid_api_key' });
});

test('a key ring opened on a config that has keys knows them from the start', async () => {
  const secret = generateSecret();
  const first = await ConfigStore.open(dir);
  await first.update((d) => void d.keys.push(record(secret, 'desktop')));
  const ring = new KeyRing(await ConfigStore.open(dir));
  assert.equal(ring.authenticate({ xGoogApiKey: secret }).name, 'desktop');
});
