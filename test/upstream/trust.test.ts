/** Which CAs upstream TLS trusts: the CA file read and checked, the system store where the runtime has it, the defaults kept. */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import { after, before, test } from 'node:test';
import { readCaFile, systemCaAvailable, trustOf } from '../../gateway/upstream/trust.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';

let ca: TestCa;

before(() => {
  ca = makeTestCa();
});

after(() => rmSync(ca.dir, { recursive: true, force: true }));

test('a CA file is read as its certificates; a bad one is refused in words', () => {
  assert.deepEqual(readCaFile(ca.caFile), [ca.caCert.trim()]);
  const two = join(ca.dir, 'two.pem');
  writeFileSync(two, `# a bundle\n${ca.caCert}\n${ca.serverCert}`);
  assert.equal(readCaFile(two).length, 2);
  assert.throws(() => readCaFile('ca.pem'), /must be an absolute path/);
  assert.throws(() => readCaFile(join(ca.dir, 'missing.pem')), /cannot be read \(no such file\)/);
  const key = join(ca.dir, 'server.key');
  assert.throws(() => readCaFile(key), /holds no PEM certificate/);
  const broken = join(ca.dir, 'broken.pem');
  writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
  assert.throws(() => readCaFile(broken), /Certificate 1 of the CA file .* does not parse/);
});

test("no CA setting leaves Node's defaults untouched; a CA file adds to them, never replaces them", () => {
  assert.deepEqual(trustOf({ caFile: null, systemCa: false }), { ca: undefined, added: 0, problem: null });
  const t = trustOf({ caFile: ca.caFile, systemCa: false });
  assert.equal(t.added, 1);
  assert.equal(t.problem, null);
  for (const root of tls.rootCertificates.slice(0, 5)) assert.ok(t.ca!.includes(root), 'the bundled roots stay');
  assert.equal(t.ca!.at(-1), ca.caCert.trim());
});

test('a CA file gone since it was set keeps the defaults and says why', () => {
  const t = trustOf({ caFile: join(ca.dir, 'gone.pem'), systemCa: false });
  assert.deepEqual([t.ca, t.added], [undefined, 0]);
  assert.match(t.problem!, /gone\.pem cannot be read/);
});

test('the system store: used where the runtime offers it, else the setting says it cannot be', () => {
  const t = trustOf({ caFile: null, systemCa: true });
  if (systemCaAvailable()) {
    assert.equal(t.problem, null);
    assert.ok(t.added >= 0);
  } else {
    assert.deepEqual([t.ca, t.added], [undefined, 0]);
    assert.match(t.problem!, /cannot read the operating system's certificate store; Node 22\.15 or later can/);
  }
});
