/**
 * electron-builder.yml checked by electron-builder itself: its schema validation, then a real
 * packaging run for Linux into a directory (no installer), with a stand-in for the Electron binary
 * (none can be downloaded here), to list what would go into app.asar and app.asar.unpacked.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO } from '../helpers/gateway.js';

const require = createRequire(join(REPO, 'package.json'));
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
const { DebugLogger } = require('builder-util');
const asar = require('@electron/asar');
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe('packaging', () => {
  let config: Record<string, any>;
  let work: string;
  let packed: string[];
  let unpacked: string[];

  before(async () => {
    config = await getConfig(REPO, null, null);
  });

  it('electron-builder.yml passes electron-builder’s own schema validation', async () => {
    await validateConfiguration(config as never, new DebugLogger(false));
    await assert.rejects(
      validateConfiguration({ ...config, asarUnpak: [] } as never, new DebugLogger(false)),
      /asarUnpak/,
      'the validator does reject a typo',
    );
  });

  it('names the app, its icons, the four installers, the fuses and the update feed', () => {
    assert.equal(config.appId, 'dev.tollgate.app');
    assert.equal(config.productName, 'Tollgate');
    assert.equal(
      pkg.productName,
      'Tollgate',
      'package.json agrees, so userData is the same folder as `tollgate serve` uses',
    );
    assert.equal(pkg.main, 'dist/main/index.js');
    const targets = (platform: any) => platform.target.map((t: any) => t.target);
    assert.ok(targets(config.mac).includes('dmg'));
    assert.deepEqual(targets(config.win), ['nsis']);
    assert.deepEqual(targets(config.linux), ['AppImage', 'deb']);
    assert.equal(config.mac.icon, 'icon.icns');
    assert.equal(config.win.icon, 'icon.ico');
    assert.equal(config.linux.icon, 'icon.png');
    assert.equal(config.electronFuses.runAsNode, false);
    assert.equal(config.electronFuses.enableNodeOptionsEnvironmentVariable, false);
    assert.equal(config.electronFuses.enableCookieEncryption, true);
    assert.equal(config.electronFuses.onlyLoadAppFromAsar, true);
    assert.equal(config.publish[0].provider, 'github');
    assert.deepEqual(
      [config.publish[0].owner, config.publish[0].repo],
      ['tollgate-app', 'tollgate'],
      'an explicit feed (a placeholder the release workflow writes over: test/ci/package-app.test.ts)',
    );
    assert.deepEqual(config.asar, { smartUnpack: false }, 'an archive, from which only asarUnpack takes files');
    assert.deepEqual(config.asarUnpack, ['**/*.node'], 'only native binaries leave the archive');
  });

  describe('a Linux directory build', () => {
    before(async () => {
      work = mkdtempSync(join(tmpdir(), 'tollgate-pack-'));
      // A stand-in for the Electron binary: electron-builder copies it and renames it, nothing more.
      const dist = join(work, 'electron-dist');
      mkdirSync(dist);
      writeFileSync(join(dist, 'electron'), '#!/bin/sh\nexit 1\n');
      chmodSync(join(dist, 'electron'), 0o755);
      // electron-builder runs in a child of its own with its output captured: its tools inherit
      // stdout, and bytes they write there would corrupt the test runner's stream.
      const overrides = {
        electronDist: dist,
        electronVersion: require('electron/package.json').version,
        // Rebuilding better-sqlite3 for Electron needs Electron's headers from the network; the
        // release workflow does it. Fuses need the real binary.
        npmRebuild: false,
        electronFuses: null,
        directories: { output: join(work, 'out') },
      };
      const script = [
        "import { createRequire } from 'node:module';",
        'const require = createRequire(process.argv[1]);',
        "const { build, Platform } = require('electron-builder');",
        "await build({ projectDir: process.argv[2], targets: Platform.LINUX.createTarget('dir'), publish: 'never', config: JSON.parse(process.argv[3]) });",
      ].join('\n');
      try {
        await run(
          process.execPath,
          ['--input-type=module', '-e', script, join(REPO, 'package.json'), REPO, JSON.stringify(overrides)],
          { cwd: REPO, maxBuffer: 64 * 1024 * 1024 },
        );
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`electron-builder failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      }
      const resources = join(work, 'out', 'linux-unpacked', 'resources');
      const archive = join(resources, 'app.asar');
      // The archive's index lists folders and unpacked files too: keep the files really inside.
      packed = asar
        .listPackage(archive, { isPack: false })
        .map((f: string) => f.replace(/^[\\/]/, '').replaceAll('\\', '/'))
        .filter((f: string) => {
          const stat = asar.statFile(archive, f, false);
          return !('files' in stat) && !('link' in stat) && !stat.unpacked;
        });
      unpacked = walk(join(resources, 'app.asar.unpacked')).map((f) =>
        relative(join(resources, 'app.asar.unpacked'), f).replaceAll('\\', '/'),
      );
    });

    after(() => rmSync(work, { recursive: true, force: true }));

    it('ships the compiled main process, gateway, presets and icons', () => {
      for (const f of [
        'package.json',
        'dist/main/index.js',
        'dist/main/preload.cjs',
        'dist/gateway/desktop-child.js',
        'dist/gateway/serve.js',
        'gateway/presets/openai/preset.json',
        'assets/icon.png',
        'assets/tray/runningTemplate@2x.png',
        'assets/tray/error.png',
      ]) {
        assert.ok(packed.includes(f), `${f} is in app.asar`);
      }
      // The token-counting thread reads its ranks from this file at run time (gateway/core/o200k.ts).
      assert.ok(packed.includes('node_modules/gpt-tokenizer/data/o200k_base.tiktoken'), 'the tokenizer ranks ship');
      for (const dep of Object.keys(pkg.dependencies))
        assert.ok(
          packed.some((f) => f.startsWith(`node_modules/${dep}/`)) ||
            unpacked.some((f) => f.startsWith(`node_modules/${dep}/`)),
          `${dep} ships`,
        );
    });

    it('keeps the native binaries outside the archive, and only them: their JavaScript stays under the integrity check', () => {
      assert.deepEqual(
        packed.filter((f) => f.endsWith('.node')),
        [],
        'no native binary inside app.asar',
      );
      assert.deepEqual(
        unpacked.filter((f) => !f.endsWith('.node')),
        [],
        'nothing but .node files in app.asar.unpacked',
      );
      for (const js of ['node_modules/better-sqlite3/lib/database.js', 'node_modules/bindings/bindings.js'])
        assert.ok(packed.includes(js), `${js} is inside app.asar`);
      assert.ok(unpacked.includes('node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
      assert.ok(
        unpacked.some((f) => /^node_modules\/@napi-rs\/keyring-[^/]+\/keyring\.[^/]+\.node$/.test(f)),
        'the keychain binding for this platform',
      );
      assert.ok(
        !unpacked.some((f) => f.startsWith('node_modules/better-sqlite3/deps/') || f.endsWith('test_extension.node')),
        'no C sources or test binaries',
      );
    });

    it('ships no source, test, source map, dev dependency or secret', () => {
      const all = [...packed, ...unpacked];
      const ours = all.filter((f) => !f.startsWith('node_modules/'));
      assert.deepEqual(
        ours.filter((f) => /\.(ts|cts|mts|tsx|map)$/.test(f)),
        [],
        'no TypeScript sources or source maps',
      );
      assert.deepEqual(
        ours.filter((f) => /^(test|bench|docs|\.ci|\.github|main|renderer\/src)\//.test(f)),
        [],
        'no tests, benchmarks, docs, CI or sources',
      );
      assert.deepEqual(
        all.filter((f) => /(^|\/)(test|tests|__tests__)\/|\.test\.[cm]?js$|(^|\/)test\.(js|sh)$/.test(f)),
        [],
        'no test files',
      );
      assert.deepEqual(
        all.filter((f) =>
          /(^|\/)(\.env[^/]*|admin-token|gateway\.json|desktop\.json|ledger\.db[^/]*|config\.json|[^/]*\.pem|[^/]*\.p12)$/.test(
            f,
          ),
        ),
        [],
        'no data-dir files, env files or certificates',
      );
      // A package the app's own dependencies also need (the lock file does not mark it dev-only) ships
      // for them: semver is a dev dependency of the canary and a dependency of electron-updater.
      const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { dev?: boolean }>;
      };
      for (const dev of Object.keys(pkg.devDependencies).filter((d) => lock.packages[`node_modules/${d}`]?.dev))
        assert.ok(!all.some((f) => f.startsWith(`node_modules/${dev}/`)), `the dev dependency ${dev} does not ship`);
      for (const f of ours) {
        const text = f.startsWith('assets/')
          ? ''
          : asar.extractFile(join(work, 'out', 'linux-unpacked', 'resources', 'app.asar'), f).toString('utf8');
        assert.doesNotMatch(
          text,
          /\bsk-[A-Za-z0-9_-]{20,}|\btga_[A-Za-z0-9_-]{20,}/,
          `${f} holds something shaped like a key`,
        );
      }
    });
  });
});
