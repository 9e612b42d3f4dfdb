/**
 * Codex CLI (Responses only) through Tollgate runs a shell command against an Anthropic upstream
 * and an OpenAI chat upstream (the mock upstream scripts the tool call).
 * Needs CODEX_BIN (npm install --prefix /tmp/tools @openai/codex@0.169.0); skipped without it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/connect-rig.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const CODEX = process.env.CODEX_BIN;
let mock: MockUpstream;
let gw: TestGateway;
let work: string;
let key: string;

before(async () => {
  if (!CODEX) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-codex-'));
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4141\n');
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  const script = `tool=exec_command,args=${encodeURIComponent(JSON.stringify({ cmd: 'cat notes.txt' }))}`;
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, script),
    models: ['claude-sonnet-4-6'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({ name: 'openai', baseUrl: scenarioBase(mock, script), models: ['gpt-4.1'] });
  key = await gw.admin.key('codex');
});

after(async () => {
  if (!CODEX) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

for (const model of ['claude-sonnet-4-6', 'gpt-4.1']) {
  test(
    `Codex runs a command through Tollgate (${model})`,
    { skip: CODEX ? false : 'set CODEX_BIN to run', timeout: 120_000 },
    async () => {
      const home = join(work, `codex-home-${model}`);
      mkdirSync(home);
      writeFileSync(
        join(home, 'config.toml'),
        [
          `model = "${model}"`,
          'model_provider = "tollgate"',
          'check_for_update_on_startup = false',
          '[analytics]',
          'enabled = false',
          '[model_providers.tollgate]',
          'name = "Tollgate"',
          `base_url = "${gw.url}/v1"`,
          'env_key = "TOLLGATE_KEY"',
          'wire_api = "responses"',
        ].join('\n'),
      );
      const stdout = await runCli(CODEX!, ['exec', '--json', '--skip-git-repo-check', 'What does notes.txt say?'], {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, TOLLGATE_KEY: key },
      });
      const events = stdout
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map(
          (l) =>
            JSON.parse(l) as {
              type: string;
              item?: { type: string; aggregated_output?: string; text?: string };
              usage?: { input_tokens: number };
            },
        );
      const command = events.find((e) => e.type === 'item.completed' && e.item?.type === 'command_execution');
      assert.match(command?.item?.aggregated_output ?? '', /the launch code is 4141/);
      const answer = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').at(-1);
      assert.match(answer?.item?.text ?? '', /tool result: .*the launch code is 4141/);
      const done = events.find((e) => e.type === 'turn.completed');
      assert.ok((done?.usage?.input_tokens ?? 0) > 1000, 'Codex read usage from response.completed');
      const rows = (await gw.admin.logs({ model })).filter((r) => r.status === 200);
      assert.equal(rows.length, 2);
      assert.ok(rows.every((r) => r.inboundProtocol === 'openai-responses' && r.costMicro > 0));
    },
  );
}
