/** The canary's commands: a time limit that ends what a command started, and a failure said in one line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failure, run } from '../../../.ci/canary/proc.js';

test('a command past its time limit is ended with what it started, and says so', async () => {
  const started = Date.now();
  // The shell starts a child of its own; both must go, or the run would wait for the child's stdout.
  const r = await run('bash', ['-c', 'sleep 30 & sleep 30; echo never'], { timeoutMs: 300 });
  assert.equal(r.timedOut, true);
  assert.ok(Date.now() - started < 10_000, 'not left waiting for the child');
  assert.equal(failure('npm install x', r), 'npm install x: no result in time');
});

test('a command that cannot start fails with its reason, not a throw', async () => {
  const r = await run('/nonexistent/tollgate-canary-cli', ['--version'], { timeoutMs: 5_000 });
  assert.match(failure('claude --version', r), /^claude --version: spawn \/nonexistent\/tollgate-canary-cli ENOENT$/);
});

test("npm's failure is its code and what happened, without the log file line", () => {
  const stderr = [
    'npm warn deprecated something',
    'npm error code ETARGET',
    'npm error notarget No matching version found for opencode-ai@9.9.9.',
    'npm error notarget In most cases you or one of your dependencies are requesting a package version that does not exist.',
    'npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log',
  ].join('\n');
  assert.equal(
    failure('npm install opencode-ai@9.9.9', { code: 1, stdout: '', stderr, timedOut: false }),
    'npm install opencode-ai@9.9.9: exit 1: ETARGET notarget No matching version found for opencode-ai@9.9.9.',
  );
  assert.equal(
    failure('codex --version', {
      code: 2,
      stdout: 'starting\n',
      stderr: 'Error: cannot find module x\n',
      timedOut: false,
    }),
    'codex --version: exit 2: Error: cannot find module x',
  );
});
