/**
 * A real Claude Code session with thinking on that moves to another family (docs/protocols.md
 * §6.6): it reads a file on a DeepSeek line (the mock as a DeepSeek thinking model, which refuses
 * a tool-call turn without its reasoning_content); `claude --resume … --model claude-haiku-4-5`
 * goes on on an Anthropic line (the mock as Claude, which refuses unsigned or foreign thinking)
 * and reads the file again; then the first model itself moves to the Anthropic line and the
 * session resumes once more. Within a turn's tool loop Claude Code resends every thinking block
 * (DeepSeek must get its reasoning_content back); a resumed session leaves earlier turns'
 * thinking out [observed, 2.1.197], so Claude only ever sees its own signed thinking here. The
 * pass-through's removal of foreign thinking is driven by test/integration/reasoning/switch.test.ts.
 * Needs CLAUDE_BIN (see claude-code.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runClaude, type ClaudeRun } from '../helpers/claude-cli.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const CLAUDE = process.env.CLAUDE_BIN;
let mock: MockUpstream;
let gw: TestGateway;
let work: string;
let key: string;

const FIRST = 'claude-opus-4-6';
const SECOND = 'claude-haiku-4-5';

before(async () => {
  if (!CLAUDE) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-cc-think-'));
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4141\n');
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  const script = `think,tool=Read,args=${encodeURIComponent(JSON.stringify({ file_path: join(work, 'notes.txt') }))}`;
  await gw.admin.line({
    preset: 'deepseek',
    name: 'deepseek',
    baseUrl: scenarioBase(mock, script),
    models: [FIRST],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, script),
    models: [SECOND],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  key = await gw.admin.key('claude-code-thinking');
});

after(async () => {
  if (!CLAUDE) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

function claude(args: string[], model: string): Promise<ClaudeRun> {
  return runClaude(CLAUDE!, args, {
    work,
    gatewayUrl: gw.url,
    key,
    model,
    haikuModel: SECOND,
    env: { MAX_THINKING_TOKENS: '4096' },
  });
}

test(
  'Claude Code, thinking on, reads a file on DeepSeek, resumes on Claude, then the model itself moves to Claude',
  { skip: CLAUDE ? false : 'set CLAUDE_BIN to run', timeout: 240_000 },
  async () => {
    const first = await claude(['-p', 'Read notes.txt and tell me what it says'], FIRST);
    assert.equal(first.is_error, false, first.result);
    assert.match(first.result, /tool result: .*the launch code is 4141/);
    const deepseekTurns = mock.requests.filter(
      (r) => r.body.model === FIRST && r.body.messages?.some((m: any) => m.role === 'assistant' && m.tool_calls),
    );
    assert.ok(deepseekTurns.length > 0, 'the tool result went back to DeepSeek');
    for (const r of deepseekTurns) {
      const turn = r.body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls);
      assert.ok(turn.reasoning_content, 'DeepSeek got its reasoning_content back on the tool-call turn');
    }

    const from = mock.requests.length;
    const second = await claude(
      ['-p', 'Read notes.txt again and tell me', '--resume', first.session_id, '--model', SECOND],
      SECOND,
    );
    assert.equal(second.is_error, false, second.result);
    assert.match(second.result, /tool result: .*the launch code is 4141/);
    assertOnlyClaudeThinking(mock.requests.slice(from), SECOND);

    // The first model itself moves to Anthropic, and the session resumes on it.
    await gw.admin.client.call('removeLine', { params: { name: 'deepseek' } });
    await gw.admin.client.call('updateLine', { params: { name: 'anthropic' }, body: { models: [SECOND, FIRST] } });
    const moved = mock.requests.length;
    const third = await claude(['-p', 'Read notes.txt once more', '--resume', first.session_id], FIRST);
    assert.equal(third.is_error, false, third.result);
    assert.match(third.result, /tool result: .*the launch code is 4141/);
    assertOnlyClaudeThinking(mock.requests.slice(moved), FIRST);
    const rows = (await gw.admin.logs({ model: FIRST })).filter((r) => r.status === 200);
    assert.ok(
      rows.some((r) => r.line === 'deepseek') && rows.some((r) => r.line === 'anthropic'),
      'one model, served by both families in one session',
    );
  },
);

/** Every thinking block the Anthropic line got carries one of the mock Claude's own signatures. */
function assertOnlyClaudeThinking(requests: MockUpstream['requests'], model: string): void {
  const toClaude = requests.filter(
    (r) => r.body.model === model && Array.isArray(r.body.messages) && r.body.messages.length > 1,
  );
  assert.ok(toClaude.length > 0, 'the resumed history went to the Anthropic line');
  for (const r of toClaude) {
    for (const m of r.body.messages) {
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b.type === 'thinking')
          assert.match(
            b.signature,
            /^EqMock/,
            `only Claude's own signed thinking reaches Claude: ${JSON.stringify(b).slice(0, 200)}`,
          );
      }
    }
  }
}
