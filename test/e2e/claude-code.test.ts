/**
 * Claude Code itself, pointed at Tollgate, does a multi-turn task with a tool call against an
 * Anthropic upstream and against an OpenAI-compatible one (the mock upstream scripts the tool call).
 * Needs the CLI: `npm install --prefix /tmp/cc @anthropic-ai/claude-code@2.1.197`, then
 * CLAUDE_BIN=/tmp/cc/node_modules/.bin/claude. Skipped without it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runClaude } from '../helpers/claude-cli.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const CLAUDE = process.env.CLAUDE_BIN;
let mock: MockUpstream;
let gw: TestGateway;
let work: string;
let key: string;

before(async () => {
  if (!CLAUDE) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-cc-'));
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4141\n');
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  const script = `tool=Read,args=${encodeURIComponent(JSON.stringify({ file_path: join(work, 'notes.txt') }))}`;
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, script),
    models: ['claude-opus-4-7', 'claude-haiku-4-5'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({ name: 'openai', baseUrl: scenarioBase(mock, script), models: ['claude-opus-4-6'] });
  key = await gw.admin.key('claude-code');
});

after(async () => {
  if (!CLAUDE) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

for (const model of ['claude-opus-4-7', 'claude-opus-4-6']) {
  test(
    `Claude Code reads a file through Tollgate (${model})`,
    { skip: CLAUDE ? false : 'set CLAUDE_BIN to run', timeout: 120_000 },
    async () => {
      const result = await runClaude(CLAUDE!, ['-p', 'Read notes.txt and tell me what it says'], {
        work,
        gatewayUrl: gw.url,
        key,
        model,
        haikuModel: 'claude-haiku-4-5',
      });
      assert.equal(result.is_error, false);
      assert.equal(result.num_turns, 2, 'one tool call, then the answer');
      assert.match(result.result, /tool result: .*the launch code is 4141/);
      const rows = (await gw.admin.logs({ model })).filter((r) => r.status === 200);
      assert.ok(rows.length >= 2);
      assert.ok(rows.every((r) => r.costMicro > 0 && r.usage.inputTokens > 1000));
    },
  );
}
