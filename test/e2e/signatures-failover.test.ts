/**
 * The real coding CLIs, thinking on, whose tool loop moves to another line of the same family
 * mid-turn (docs/protocols.md §6.6, "Signatures and lines"): each family has two lines on two
 * accounts, and line A takes one request a minute, so the loop's second request goes to line B
 * with A's signatures in its history. The mock, as each vendor does, refuses another account's
 * signatures; Tollgate leaves them out and the turn completes. Needs CLAUDE_BIN, CODEX_BIN and
 * GEMINI_BIN (see claude-code.test.ts, codex.test.ts, gemini-cli.test.ts); each test is skipped
 * without its CLI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { runClaude } from '../helpers/claude-cli.js';
import { runCli } from '../helpers/connect-rig.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const { CLAUDE_BIN, CODEX_BIN, GEMINI_BIN } = process.env;
let mock: MockUpstream;
let gw: TestGateway;
let work: string;
let key: string;

before(async () => {
  if (!CLAUDE_BIN && !CODEX_BIN && !GEMINI_BIN) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-signatures-'));
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4141\n');
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_A_KEY = 'account-a';
  process.env.TOLLGATE_TEST_B_KEY = 'account-b';
  await gw.admin.topup(10);
  key = await gw.admin.key('clis');
});

after(async () => {
  if (!CLAUDE_BIN && !CODEX_BIN && !GEMINI_BIN) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

/** Lines a (first choice, one request a minute) and b, on two accounts, for one model. */
async function twoLines(protocol: 'anthropic' | 'openai-responses' | 'gemini', model: string, script: string) {
  const baseUrl = protocol === 'openai-responses' ? scenarioBase(mock, script) : scenarioOrigin(mock, script);
  for (const [name, priority, rpm] of [
    [`${model}-a`, 10, 1],
    [`${model}-b`, 0, null],
  ] as const)
    await gw.admin.line({
      name,
      protocol,
      baseUrl,
      models: [model],
      priority,
      rpm,
      apiKeyEnv: `TOLLGATE_TEST_${name.at(-1)!.toUpperCase()}_KEY`,
    });
}

/** The turn went from line a to line b, and b's request left a's signatures out, saying so. */
async function assertMoved(model: string, note: RegExp): Promise<void> {
  const all = await gw.admin.logs({ model });
  // Claude Code recovers from the vendor's 400 by resending the turn without thinking: none may happen.
  assert.deepEqual(
    all.filter((r) => r.status !== 200).map((r) => r.errorMessage),
    [],
    'no request refused',
  );
  const rows = all.filter((r) => r.status === 200).reverse();
  assert.equal(rows[0]?.line, `${model}-a`, 'the turn began on line a');
  const onB = rows.filter((r) => r.line === `${model}-b`);
  assert.ok(onB.length > 0, 'the tool loop went on on line b');
  assert.match(onB[0]!.notes ?? '', note);
  const toB = mock.requests.filter((r) => r.body?.model === model || r.path.includes(model));
  assert.ok(
    toB.every((r) => !JSON.stringify(r.body).includes('tollgate.l1.')),
    'no bound value reached a vendor',
  );
}

test(
  'Claude Code: a thinking tool loop moves to another Anthropic account',
  { skip: CLAUDE_BIN ? false : 'set CLAUDE_BIN to run', timeout: 180_000 },
  async () => {
    const model = 'claude-sonnet-4-6';
    const args = encodeURIComponent(JSON.stringify({ file_path: join(work, 'notes.txt') }));
    await twoLines('anthropic', model, `think,tool=Read,args=${args}`);
    const run = await runClaude(CLAUDE_BIN!, ['-p', 'Read notes.txt and tell me what it says'], {
      work,
      gatewayUrl: gw.url,
      key,
      model,
      haikuModel: model,
      env: { MAX_THINKING_TOKENS: '4096' },
    });
    assert.equal(run.is_error, false, run.result);
    assert.match(run.result, /tool result: .*the launch code is 4141/);
    await assertMoved(model, /left out 1 thinking block\(s\) made by another line/);
  },
);

test(
  'Codex: a reasoning tool loop moves to another OpenAI account',
  { skip: CODEX_BIN ? false : 'set CODEX_BIN to run', timeout: 180_000 },
  async () => {
    const model = 'gpt-5.4';
    await twoLines(
      'openai-responses',
      model,
      `think,tool=exec_command,args=${encodeURIComponent('{"cmd":"cat notes.txt"}')}`,
    );
    const home = join(work, 'codex-home');
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
        'request_max_retries = 0',
        'stream_max_retries = 0',
      ].join('\n'),
    );
    const stdout = await runCli(CODEX_BIN!, ['exec', '--json', '--skip-git-repo-check', 'What does notes.txt say?'], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, TOLLGATE_KEY: key },
    });
    const answer = stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string; item?: { type: string; text?: string } })
      .filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message')
      .at(-1);
    assert.match(answer?.item?.text ?? '', /tool result: .*the launch code is 4141/);
    await assertMoved(model, /1 reasoning item\(s\) made by another line/);
  },
);

test(
  'Gemini CLI: a Gemini 3 tool loop moves to another Google key',
  { skip: GEMINI_BIN ? false : 'set GEMINI_BIN to run', timeout: 180_000 },
  async () => {
    const model = 'gemini-3.1-pro-preview';
    await twoLines('gemini', model, 'think');
    mkdirSync(join(work, '.gemini'), { recursive: true });
    writeFileSync(
      join(work, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true },
      }),
    );
    const { stdout } = await promisify(execFile)(
      GEMINI_BIN!,
      ['-m', model, '-p', 'Tell me about this folder', '-y', '-o', 'json'],
      {
        cwd: work,
        env: {
          PATH: process.env.PATH,
          HOME: work,
          GEMINI_API_KEY: key,
          GOOGLE_GEMINI_BASE_URL: gw.url,
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
        },
      },
    );
    const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      response: string;
      stats: { tools: { totalCalls: number } };
    };
    assert.ok(result.stats.tools.totalCalls >= 1, 'the model called a tool');
    assert.match(result.response, /^tool result: /);
    await assertMoved(model, /thought signature\(s\).*made by another line/);
  },
);
