/**
 * The release workflow (.github/workflows/release.yml), parsed: it builds on three OSes, runs each
 * packaged app before anything is published, runs the Linux pair on pull requests, and keeps the
 * signing secrets to tag builds. The files and scripts it names exist.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { REPO } from '../helpers/gateway.js';

const require = createRequire(join(REPO, 'package.json'));
const yaml = require('js-yaml') as { load(text: string): any };
const TEXT = readFileSync(join(REPO, '.github', 'workflows', 'release.yml'), 'utf8');
const wf = yaml.load(TEXT);

type Step = { name?: string; run?: string; uses?: string; if?: string; with?: Record<string, string> };
const steps = (job: string): Step[] => wf.jobs[job].steps;
const needs = (job: string): string[] => [wf.jobs[job].needs ?? []].flat();

/**
 * A matrix written as `fromJSON(cond && 'A' || 'B')`, read the way GitHub evaluates it for a tag
 * push (condition false) or a pull request (true).
 */
function matrixFor(expr: string, event: 'push' | 'pull_request'): unknown {
  const m = /fromJSON\(github\.event_name == 'pull_request' && '(.*)' \|\| '(.*)'\)/.exec(expr);
  assert.ok(m, `a matrix chosen by event: ${expr}`);
  return JSON.parse(event === 'pull_request' ? m[1]! : m[2]!);
}

describe('the release workflow', () => {
  test('runs on version tags and on pull requests', () => {
    assert.deepEqual(wf.on.push.tags, ['v*.*.*']);
    assert.ok('pull_request' in wf.on);
    assert.deepEqual(wf.permissions, { contents: 'read' }, 'write access only where a job needs it');
  });

  test('publishing waits for the build and the packaged-app run on every OS; the draft and publish jobs run on tags only', () => {
    assert.deepEqual(needs('publish').sort(), ['build', 'draft', 'packaged-app']);
    assert.deepEqual(needs('packaged-app'), ['build']);
    assert.equal(wf.jobs.publish.if, "github.event_name == 'push'");
    assert.equal(wf.jobs.draft.if, "github.event_name == 'push'");
    assert.deepEqual(wf.jobs.publish.permissions, { contents: 'write' });
    const run = steps('publish')
      .map((s) => s.run ?? '')
      .join('\n');
    assert.match(run, /gh release upload "\$GITHUB_REF_NAME" --repo "\$GITHUB_REPOSITORY" --clobber release\/\*/);
    assert.match(run, /--draft=false/);
    assert.ok(run.indexOf('upload') < run.indexOf('--draft=false'), 'uploaded before it is published');
  });

  test('builds on macOS, Windows and Linux for a tag, Linux for a pull request; runs each build', () => {
    assert.deepEqual(matrixFor(wf.jobs.build.strategy.matrix.os, 'push'), [
      'macos-latest',
      'windows-latest',
      'ubuntu-22.04',
    ]);
    assert.deepEqual(matrixFor(wf.jobs.build.strategy.matrix.os, 'pull_request'), ['ubuntu-22.04']);
    const tagRuns = matrixFor(wf.jobs['packaged-app'].strategy.matrix.include, 'push') as {
      os: string;
      artifact: string;
    }[];
    assert.deepEqual(tagRuns.map((r) => r.artifact).sort(), ['Linux', 'Windows', 'macOS']);
    const prRuns = matrixFor(wf.jobs['packaged-app'].strategy.matrix.include, 'pull_request') as { os: string }[];
    assert.deepEqual(prRuns, [{ os: 'ubuntu-24.04', artifact: 'Linux' }], 'the deb runs on Ubuntu 24.04');
    const download = steps('packaged-app').find((s) => s.uses?.startsWith('actions/download-artifact'))!;
    assert.equal(download.with!.name, 'installers-${{ matrix.artifact }}');
    const upload = steps('build').find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    assert.equal(upload.with!.name, 'installers-${{ runner.os }}');
    for (const kind of ['dmg', 'zip', 'exe', 'AppImage', 'deb', 'blockmap'])
      assert.ok(upload.with!.path!.includes(`release/*.${kind}`), kind);
    assert.ok(upload.with!.path!.includes('release/latest*.yml'), 'the update metadata');
  });

  test('packages with the script, never publishing from electron-builder itself', () => {
    const pack = steps('build').find((s) => s.name === 'Package')!;
    assert.equal(pack.run, 'node --import tsx .ci/package-app.ts "$RUNNER_OS"');
    assert.ok(existsSync(join(REPO, '.ci', 'package-app.ts')));
    assert.doesNotMatch(TEXT, /--publish always|-p always/);
  });

  test('installs what was built, checks the shipped fuses, then drives the app (Linux under Xvfb)', () => {
    const names = steps('packaged-app').map((s) => s.name ?? s.uses);
    const order = [
      'Install the deb',
      'Unpack the dmg',
      'Run the installer',
      'Fuses as shipped',
      'Let Playwright attach',
      'Run the packaged app',
    ];
    for (const [i, name] of order.entries()) {
      assert.ok(names.includes(name), name);
      if (i > 0) assert.ok(names.indexOf(order[i - 1]) < names.indexOf(name), `${order[i - 1]} before ${name}`);
    }
    const run = steps('packaged-app')
      .map((s) => s.run ?? '')
      .join('\n');
    assert.match(run, /apt-get install -y xvfb "\$PWD"\/release\/\*\.deb/);
    assert.match(run, /xvfb-run -a node --import tsx --test test\/packaged\/app\.test\.ts/);
    assert.match(run, /codesign --verify --deep --strict/);
    assert.match(run, /'\/currentuser', '\/S'/);
    for (const f of ['test/packaged/app.test.ts', 'test/packaged/fuses.test.ts', 'test/packaged/allow-inspect.ts'])
      assert.ok(run.includes(f) && existsSync(join(REPO, f)), f);
  });

  test('signing secrets come from the repository, and only into tag builds', () => {
    const env = steps('build').find((s) => s.name === 'Package')! as Step & { env: Record<string, string> };
    for (const secret of [
      'MAC_CSC_LINK',
      'MAC_CSC_KEY_PASSWORD',
      'APPLE_API_KEY_P8',
      'APPLE_API_KEY_ID',
      'APPLE_API_ISSUER',
      'WIN_CSC_LINK',
      'WIN_CSC_KEY_PASSWORD',
    ])
      assert.equal(env.env[secret], `\${{ github.event_name == 'push' && secrets.${secret} || '' }}`, secret);
    assert.doesNotMatch(TEXT, /MII[A-Za-z0-9+/]{20}|BEGIN PRIVATE KEY/, 'nothing secret written into the file');
  });
});
