/**
 * What the release workflow's packaging script decides (.ci/package-app.ts), checked against
 * electron-builder's own configuration loader and validator: the update feed follows the
 * repository, and macOS is signed with a Developer ID and notarised, or ad hoc, never neither.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { configOverrides, macSigning, PackagingError, platformOption, publishTarget } from '../../.ci/package-app.js';
import { REPO } from '../helpers/gateway.js';

const require = createRequire(join(REPO, 'package.json'));
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
const { DebugLogger } = require('builder-util');
const { normalizeOptions } = require('electron-builder/out/builder.js');

/** The configuration electron-builder builds with, given the script's overrides (as build() merges them). */
async function effective(overrides: Record<string, unknown> | null) {
  const config = await getConfig(REPO, null, overrides === null ? null : structuredClone(overrides));
  await validateConfiguration(config, new DebugLogger(false));
  return config;
}

const SIGNED = {
  MAC_CSC_LINK: 'MIIKcertificate',
  MAC_CSC_KEY_PASSWORD: 'pw',
  APPLE_API_KEY_P8: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----',
  APPLE_API_KEY_ID: 'ABC123',
  APPLE_API_ISSUER: '69a6de7e-0000-0000-0000-000000000000',
};

describe('macOS signing', () => {
  test('without a certificate: ad hoc, with a warning that says what users will see', () => {
    const s = macSigning({});
    assert.equal(s.kind, 'ad-hoc');
    assert.match(s.kind === 'ad-hoc' ? s.warning : '', /signed ad hoc.*not notarised.*confirms it once/s);
    assert.equal(macSigning({ MAC_CSC_LINK: '' }).kind, 'ad-hoc', 'an empty secret is no secret');
  });

  test('a certificate with the whole App Store Connect key: Developer ID and notarisation, the key kept out of the config', () => {
    const s = macSigning(SIGNED);
    assert.equal(s.kind, 'developer-id');
    if (s.kind !== 'developer-id') return;
    assert.deepEqual(s.env, {
      CSC_LINK: SIGNED.MAC_CSC_LINK,
      CSC_KEY_PASSWORD: 'pw',
      APPLE_API_KEY_ID: 'ABC123',
      APPLE_API_ISSUER: SIGNED.APPLE_API_ISSUER,
    });
    assert.equal(s.appleApiKey, SIGNED.APPLE_API_KEY_P8);
  });

  test('a certificate without a complete notarisation key fails the build, naming what is missing', () => {
    for (const missing of ['APPLE_API_KEY_P8', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'] as const) {
      assert.throws(
        () => macSigning({ ...SIGNED, [missing]: '' }),
        (err: unknown) => err instanceof PackagingError && err.message.includes(`but ${missing} is not`),
      );
    }
    assert.throws(
      () => macSigning({ MAC_CSC_LINK: 'x' }),
      /APPLE_API_KEY_P8, APPLE_API_KEY_ID, APPLE_API_ISSUER are not.*blocked by Gatekeeper/,
    );
  });

  test('ad hoc as electron-builder will build it: identity "-", no hardened runtime, no notarisation', async () => {
    const config = await effective(configOverrides(publishTarget('acme/tollgate'), 'ad-hoc'));
    assert.equal(config.mac.identity, '-');
    assert.equal(config.mac.hardenedRuntime, false);
    assert.equal(config.mac.notarize, false);
    assert.deepEqual(
      config.extraMetadata,
      { tollgate: { updates: 'download-page', releasesUrl: 'https://github.com/acme/tollgate/releases' } },
      "its updates are offered on the release page: macOS's updater takes only a Developer ID's",
    );
    assert.equal(
      config.mac.category,
      'public.app-category.developer-tools',
      "the rest of electron-builder.yml's mac block stays",
    );
  });

  test('Developer ID as electron-builder will build it: the hardened runtime and its entitlements, notarised', async () => {
    const config = await effective(configOverrides(publishTarget('acme/tollgate'), 'developer-id'));
    assert.equal(config.mac.identity, undefined, 'the identity comes from the certificate');
    assert.equal(config.mac.hardenedRuntime, true);
    assert.equal(config.mac.entitlements, 'assets/entitlements.mac.plist');
    assert.equal(config.mac.notarize, true);
    assert.equal(config.extraMetadata, undefined, 'updates install in place');
  });
});

describe('the update feed', () => {
  test('is the repository the workflow runs in, written over the placeholder', async () => {
    const plain = await effective(null);
    assert.deepEqual([plain.publish[0].owner, plain.publish[0].repo], ['tollgate-app', 'tollgate']);
    const config = await effective(configOverrides(publishTarget('someone/tollgate-fork'), null));
    assert.equal(config.publish.length, 1);
    assert.deepEqual(config.publish[0], {
      provider: 'github',
      owner: 'someone',
      repo: 'tollgate-fork',
      releaseType: 'draft',
    });
  });

  test('a malformed repository name stops the build', () => {
    for (const bad of [undefined, '', 'no-slash', 'a/b/c', 'a b/c'])
      assert.throws(() => publishTarget(bad), PackagingError, String(bad));
  });
});

test("each runner's platform is the one electron-builder builds for", () => {
  const platforms = (os: 'macOS' | 'Windows' | 'Linux') =>
    [...normalizeOptions({ ...platformOption(os), publish: 'never' }).targets.keys()].map(
      (p: { name: string }) => p.name,
    );
  assert.deepEqual(platforms('macOS'), ['mac']);
  assert.deepEqual(platforms('Windows'), ['windows']);
  assert.deepEqual(platforms('Linux'), ['linux']);
});
