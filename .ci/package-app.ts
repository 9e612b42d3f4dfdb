/**
 * Builds the installers of one OS for the release workflow (.github/workflows/release.yml):
 * `node --import tsx .ci/package-app.ts <macOS|Windows|Linux>`. electron-builder runs with
 * `--publish never`; the workflow uploads what it built once the packaged app has been run
 * (test/packaged/). What this script decides, it decides in pure functions tested in
 * test/ci/package-app.test.ts against electron-builder's own configuration loader:
 *
 * - **The update feed** is the repository the workflow runs in (`GITHUB_REPOSITORY`), written
 *   over electron-builder.yml's placeholder owner and repo, so a fork publishes and updates from
 *   itself.
 * - **macOS signing** comes in two kinds, never a third. With a Developer ID certificate the app
 *   is signed and notarised, and a certificate without the complete App Store Connect key fails
 *   the build (a signed but un-notarised app is still blocked by Gatekeeper). Without a
 *   certificate the app is signed ad hoc (`identity: "-"`): electron-builder flips the fuses after
 *   Electron's own ad-hoc signature was made, which breaks it, and an Apple Silicon Mac kills an
 *   app whose signature is broken, while an Intel Mac calls it "damaged". An ad-hoc signature
 *   cannot carry the hardened runtime's library validation (no team to validate against) and
 *   cannot be notarised, so both are off for it; the app then opens after the user confirms it
 *   once (docs/desktop.md, "First start").
 * - **Windows signing** happens when WIN_CSC_LINK is set; electron-builder reads it itself.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type RunnerOs = 'macOS' | 'Windows' | 'Linux';

export type MacSigning =
  { kind: 'developer-id'; env: Record<string, string>; appleApiKey: string } | { kind: 'ad-hoc'; warning: string };

/** Repository secrets the workflow passes in; absent ones are unset or empty. */
export interface SigningSecrets {
  MAC_CSC_LINK?: string;
  MAC_CSC_KEY_PASSWORD?: string;
  APPLE_API_KEY_P8?: string;
  APPLE_API_KEY_ID?: string;
  APPLE_API_ISSUER?: string;
}

export class PackagingError extends Error {}

const NOTARY = ['APPLE_API_KEY_P8', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'] as const;

/** Which macOS signing the secrets allow; a certificate without a complete notarisation key is an error. */
export function macSigning(s: SigningSecrets): MacSigning {
  if (!s.MAC_CSC_LINK)
    return {
      kind: 'ad-hoc',
      warning:
        'MAC_CSC_LINK is not set: the macOS app is signed ad hoc, not with a Developer ID, and not notarised. ' +
        'It opens after the user confirms it once in System Settings (docs/desktop.md, "First start").',
    };
  const missing = NOTARY.filter((k) => !s[k]);
  if (missing.length > 0)
    throw new PackagingError(
      `MAC_CSC_LINK is set but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not: a signed app that is ` +
        'not notarised is still blocked by Gatekeeper. Add the App Store Connect API key secrets, or remove MAC_CSC_LINK ' +
        'to build an ad-hoc signed app.',
    );
  return {
    kind: 'developer-id',
    appleApiKey: s.APPLE_API_KEY_P8!,
    env: {
      CSC_LINK: s.MAC_CSC_LINK,
      CSC_KEY_PASSWORD: s.MAC_CSC_KEY_PASSWORD ?? '',
      APPLE_API_KEY_ID: s.APPLE_API_KEY_ID!,
      APPLE_API_ISSUER: s.APPLE_API_ISSUER!,
    },
  };
}

/** `owner/name` → the publish target electron-builder writes into app-update.yml. */
export function publishTarget(repository: string | undefined): { owner: string; repo: string } {
  const m = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(repository ?? '');
  if (!m) throw new PackagingError(`GITHUB_REPOSITORY must be owner/name, not ${JSON.stringify(repository)}`);
  return { owner: m[1]!, repo: m[2]! };
}

/** What electron-builder.yml is overridden with for this build (its `config` option). */
export function configOverrides(
  target: { owner: string; repo: string },
  mac: MacSigning['kind'] | null,
): Record<string, unknown> {
  const config: Record<string, unknown> = { publish: { owner: target.owner, repo: target.repo } };
  if (mac === 'ad-hoc') {
    config.mac = { identity: '-', hardenedRuntime: false, notarize: false };
    // macOS's native updater installs only a version signed by the same Developer ID: an ad-hoc
    // build offers its updates on the release page instead (main/updates.ts, installModeOf).
    config.extraMetadata = {
      tollgate: { updates: 'download-page', releasesUrl: `https://github.com/${target.owner}/${target.repo}/releases` },
    };
  }
  if (mac === 'developer-id') config.mac = { notarize: true };
  return config;
}

/** electron-builder's platform flag for a runner OS, as its `build()` takes it. */
export function platformOption(os: RunnerOs): Record<string, string[]> {
  return { macOS: { mac: [] }, Windows: { win: [] }, Linux: { linux: [] } }[os];
}

async function main(): Promise<void> {
  const os = process.argv[2] as RunnerOs;
  if (!['macOS', 'Windows', 'Linux'].includes(os))
    throw new PackagingError('usage: package-app.ts <macOS|Windows|Linux>');
  const target = publishTarget(process.env.GITHUB_REPOSITORY);
  let mac: MacSigning | null = null;
  if (os === 'macOS') {
    mac = macSigning(process.env as SigningSecrets);
    if (mac.kind === 'ad-hoc') {
      console.log(`::warning::${mac.warning}`);
      // No certificate to look for: the ad-hoc identity is named explicitly.
      process.env.CSC_IDENTITY_AUTO_DISCOVERY = 'false';
    } else {
      const dir = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'notary-'));
      const keyFile = join(dir, `AuthKey_${mac.env.APPLE_API_KEY_ID}.p8`);
      writeFileSync(keyFile, mac.appleApiKey, { mode: 0o600 });
      Object.assign(process.env, mac.env, { APPLE_API_KEY: keyFile });
    }
  }
  if (os === 'Windows' && !process.env.WIN_CSC_LINK)
    console.log('::warning::WIN_CSC_LINK is not set: the Windows installer is not signed (SmartScreen warns once).');
  const require = createRequire(import.meta.url);
  const { build } = require('electron-builder') as { build(o: Record<string, unknown>): Promise<string[]> };
  const built = await build({
    ...platformOption(os),
    publish: 'never',
    projectDir: resolve(fileURLToPath(new URL('..', import.meta.url))),
    config: configOverrides(target, mac?.kind ?? null),
  });
  console.log(`built:\n${built.join('\n')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.log(`::error::${(err as Error).message}`);
    process.exitCode = 1;
  });
}
