/**
 * The canary's matrix is honest: a cell is green only when its tests ran and passed; a failure, a
 * skip, no test at all, a crashed runner or a CLI that did not install is red with its reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENTS } from '../../../.ci/canary/clients.js';
import {
  allGreen,
  columnOf,
  failedRow,
  failures,
  testedRow,
  toMarkdown,
  toText,
  type Matrix,
} from '../../../.ci/canary/matrix.js';
import type { Outcome } from '../../../.ci/canary/outcomes.js';
import type { Prepared } from '../../../.ci/canary/prepare.js';

const claude = CLIENTS.find((c) => c.id === 'claude-code')!;
const codex = CLIENTS.find((c) => c.id === 'codex')!;
const PREPARED: Prepared = {
  ok: true,
  client: claude,
  version: '2.1.332',
  engines: '>=22.0.0',
  node: { version: '22.23.3', bin: '/x/node' },
  bin: '/x/claude',
  reports: '2.1.332 (Claude Code)',
  path: '/x:/usr/bin',
};

const t = (name: string, result: Outcome['result'] = 'pass', reason?: string): Outcome => ({
  name,
  file: 'test/e2e/connect-claude-code.test.ts',
  result,
  durationMs: 1000,
  ...(reason ? { reason } : {}),
});
const line = (p: string): string => `tollgate connect → Claude Code reads a file through a ${p} line → restores`;

function matrix(rows: Matrix['rows']): Matrix {
  return {
    startedAt: '2026-11-27T06:00:00.000Z',
    finishedAt: '2026-11-27T06:30:00.000Z',
    host: { node: 'v20.20.2', platform: 'linux', arch: 'x64' },
    rows,
  };
}

test('a test belongs to the protocol of the line its name goes through, else to "more"', () => {
  assert.equal(columnOf(line('openai-chat')), 'openai-chat');
  assert.equal(columnOf(line('openai-responses')), 'openai-responses');
  assert.equal(columnOf('tollgate connect → Gemini CLI reads a file through a gemini line → …'), 'gemini');
  assert.equal(columnOf('Claude Code reads a file through Tollgate (claude-opus-4-7)'), 'more');
});

test('all passed: every cell green, with the counts', () => {
  const outcomes = [...['openai-chat', 'anthropic', 'openai-responses', 'gemini'].map((p) => t(line(p))), t('other')];
  const row = testedRow(PREPARED, { files: [], outcomes }, '2.1.197');
  const m = matrix([row]);
  assert.equal(allGreen(m), true);
  assert.deepEqual(row.cells.anthropic, { state: 'pass', passed: 1, total: 1 });
  assert.equal(row.node, '22.23.3');
  assert.match(
    toText(m),
    /^Claude Code +2\.1\.332 \(CI: 2\.1\.197\) +22\.23\.3 \(fetched\) +pass +pass +pass +pass +pass$/m,
  );
  assert.match(toMarkdown(m), /All green\./);
});

test('a failure, a skip and a protocol without tests are red, each with its reason', () => {
  const outcomes = [
    t(line('openai-chat')),
    t(line('anthropic'), 'fail', 'Expected values to be strictly equal:\n\n1 !== 2'),
    t(line('gemini'), 'skip', 'set CLAUDE_BIN to run'),
  ];
  const row = testedRow(PREPARED, { files: [], outcomes }, null);
  const m = matrix([row]);
  assert.equal(allGreen(m), false);
  assert.equal(row.cells['openai-chat']!.state, 'pass');
  assert.deepEqual(row.cells.anthropic, {
    state: 'fail',
    passed: 0,
    total: 1,
    reason: `failed: ${line('anthropic')}: Expected values to be strictly equal:`,
  });
  assert.equal(row.cells.gemini!.reason, `skipped: ${line('gemini')}: set CLAUDE_BIN to run`);
  assert.equal(row.cells['openai-responses']!.reason, 'no test ran for this protocol');
  assert.equal(row.cells.more, null, 'no other tests: nothing to show, not red');
  assert.equal(failures(m).length, 3);
  const md = toMarkdown(m);
  assert.match(
    md,
    /\| Claude Code \(`@anthropic-ai\/claude-code`\) \| 2\.1\.332 \| 22\.23\.3 \(fetched\) \| ✅ \| ❌ 0\/1 \| ❌ \| ❌ 0\/1 \| – \|/,
  );
  assert.match(md, /^- Claude Code 2\.1\.332 · anthropic: failed: /m);
});

test('a runner that crashed leaves the columns it did not reach red with its reason', () => {
  const row = testedRow(
    PREPARED,
    { files: [], outcomes: [t(line('openai-chat'))], error: 'the suite runner: no result in time' },
    null,
  );
  assert.equal(row.cells['openai-chat']!.state, 'pass');
  assert.equal(row.cells.anthropic!.reason, 'the suite runner: no result in time');
  assert.equal(row.cells.more!.state, 'fail');
});

test('a CLI that did not install is a red row, its reason said once', () => {
  const row = failedRow(
    {
      ok: false,
      client: codex,
      version: '0.171.0',
      stage: 'install',
      reason: 'npm install @openai/codex@0.171.0: exit 1: E404',
    },
    '0.169.0',
  );
  const m = matrix([row]);
  assert.equal(allGreen(m), false);
  assert.ok(Object.values(row.cells).every((c) => c!.state === 'fail'));
  assert.deepEqual(failures(m), [
    'Codex CLI 0.171.0 · every column: install: npm install @openai/codex@0.171.0: exit 1: E404',
  ]);
  assert.match(toText(m), /^Codex CLI +0\.171\.0 \(CI: 0\.169\.0\) +20\.20\.2 +FAIL +FAIL +FAIL +FAIL +FAIL$/m);
});
