/**
 * The suite runner turns node:test's events into the canary's outcomes: passes, failures with the
 * test's own message, skips with their reason, and a file that crashes before any test with the
 * error it printed; and each CLI's suites are the e2e files named after it, with the versions CI
 * pins read from .ci/run.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { CLIENTS, pinnedVersions, readPinned, suitesOf } from '../../../.ci/canary/clients.js';
import type { Outcome } from '../../../.ci/canary/outcomes.js';
import { REPO } from '../../helpers/gateway.js';

const run = promisify(execFile);

test('each test file becomes outcomes: pass, fail with its message, skip with its reason, a crash with its error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-canary-runner-'));
  try {
    writeFileSync(
      join(dir, 'a.test.ts'),
      [
        "import assert from 'node:assert/strict';",
        "import { test } from 'node:test';",
        "test('passes', () => {});",
        "test('fails', () => assert.equal(1, 2, 'one is not two'));",
        "test('skipped', { skip: 'set X_BIN to run' }, () => {});",
      ].join('\n'),
    );
    writeFileSync(join(dir, 'b.test.ts'), "console.error('starting');\nthrow new Error('the rig would not start');\n");
    const log = join(dir, 'run.log');
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO, '.ci/canary/suite-runner.ts'),
        '--log',
        log,
        join(dir, 'a.test.ts'),
        join(dir, 'b.test.ts'),
      ],
      { cwd: REPO },
    );
    const outcomes = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Outcome);
    assert.deepEqual(
      outcomes.map((o) => [o.name.replace(dir, ''), o.result, o.reason]),
      [
        ['passes', 'pass', undefined],
        ['fails', 'fail', 'one is not two\n\n1 !== 2'],
        ['skipped', 'skip', 'set X_BIN to run'],
        ['/b.test.ts', 'fail', 'the file failed to run: Error: the rig would not start'],
      ],
    );
    const text = readFileSync(log, 'utf8');
    assert.match(text, /^✔ passes \(/m);
    assert.match(text, /^✖ fails \(.*\n {4}one is not two/m);
    assert.match(text, /starting/, 'what the files printed is in the log');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a CLI’s suites: its connect suite first, then the other e2e files named after it', () => {
  const by = (id: string): string[] =>
    suitesOf(
      REPO,
      CLIENTS.find((c) => c.id === id)!,
    );
  assert.deepEqual(by('claude-code'), [
    'test/e2e/connect-claude-code.test.ts',
    'test/e2e/claude-code-thinking.test.ts',
    'test/e2e/claude-code.test.ts',
  ]);
  assert.deepEqual(by('codex'), ['test/e2e/connect-codex.test.ts', 'test/e2e/codex.test.ts']);
  assert.deepEqual(by('gemini-cli'), ['test/e2e/connect-gemini-cli.test.ts', 'test/e2e/gemini-cli.test.ts']);
  assert.deepEqual(by('opencode'), ['test/e2e/connect-opencode.test.ts']);
});

test('the pinned versions are the ones .ci/run installs, one for each CLI the canary knows', () => {
  assert.deepEqual(
    [...pinnedVersions('X=1\nCLIS="@a/b@1.2.3 c@4.5.6"\n')],
    [
      ['@a/b', '1.2.3'],
      ['c', '4.5.6'],
    ],
  );
  const pinned = readPinned(REPO);
  for (const c of CLIENTS) assert.match(pinned.get(c.pkg) ?? '', /^\d+\.\d+\.\d+$/, `.ci/run pins ${c.pkg}`);
});
