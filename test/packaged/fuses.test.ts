/**
 * The fuses of the app as shipped are the ones electron-builder.yml names (the release workflow
 * runs this against the installed app before anything else touches it). The reading and the one
 * change the packaged-app test makes are checked here on a stand-in binary, without Electron.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO } from '../helpers/gateway.js';
import { allowInspect, expectedFuses, FUSE_INDEX, readFuses } from './fuses.js';
import { findApp } from './harness.js';

const require = createRequire(join(REPO, 'package.json'));
const { getConfig } = require('app-builder-lib/out/util/config/config.js');
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';

let expected: ReturnType<typeof expectedFuses>;
before(async () => {
  expected = expectedFuses((await getConfig(REPO, null, null)).electronFuses);
});

describe('reading and changing fuses (a stand-in binary)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-fuses-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('electron-builder.yml names every fuse it sets, and turns off what lets a local program into the app', () => {
    assert.deepEqual(expected, {
      runAsNode: 'off',
      enableNodeOptionsEnvironmentVariable: 'off',
      enableNodeCliInspectArguments: 'off',
      enableCookieEncryption: 'on',
      enableEmbeddedAsarIntegrityValidation: 'on',
      onlyLoadAppFromAsar: 'on',
      grantFileProtocolExtraPrivileges: 'off',
    });
    assert.throws(() => expectedFuses({ enableEverything: true }), /does not know: enableEverything/);
  });

  test('reads a fuse wire, and the test-only change turns on the inspector and nothing else', async () => {
    const wire = Array.from({ length: 8 }, (_, i) => {
      const name = Object.keys(FUSE_INDEX).find((n) => FUSE_INDEX[n] === i)!;
      return expected[name] === 'on' ? '1' : '0';
    }).join('');
    const binary = join(dir, 'tollgate');
    writeFileSync(
      binary,
      Buffer.concat([
        Buffer.from('\x7fELF…'),
        Buffer.from(SENTINEL),
        Buffer.from([1, 8]),
        Buffer.from(wire),
        Buffer.from('…'),
      ]),
    );
    const size = readFileSync(binary).length;
    const shipped = await readFuses(binary);
    for (const [name, state] of Object.entries(expected)) assert.equal(shipped[name], state, name);
    await allowInspect(binary, 'linux');
    const after = await readFuses(binary);
    assert.deepEqual(after, { ...shipped, enableNodeCliInspectArguments: 'on' });
    assert.equal(readFileSync(binary).length, size, 'the file is only rewritten in place');
  });
});

const found = findApp(process.env, REPO);
const packaged = 'app' in found && found.app.kind === 'packaged' ? found.app : undefined;
const skip =
  'skip' in found
    ? found.skip
    : 'error' in found
      ? false
      : packaged
        ? false
        : 'Electron runs this checkout here, not a packaged app: only electron-builder flips fuses.';

describe('the shipped app', { skip }, () => {
  test('its fuses are the ones electron-builder.yml names', async () => {
    if ('error' in found) throw new Error(found.error);
    const shipped = await readFuses(packaged!.executable);
    for (const [name, state] of Object.entries(expected))
      assert.equal(shipped[name], state, `${name} in ${packaged!.executable}`);
  });
});
