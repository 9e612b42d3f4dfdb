/**
 * Codex (CODEX_BIN) and Gemini CLI (GEMINI_BIN) through Tollgate are recognised as their tools and
 * sessions (Codex by its session-id header, Gemini CLI, which sends none, by key + tool), and a
 * looping upstream is paused by the loop guard: each CLI stops at the refusal instead of retrying
 * it. Skipped without the CLIs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const CODEX = process.env.CODEX_BIN;
const GEMINI = process.env.GEMINI_BIN;
let mock: MockUpstream;
let gw: TestGateway;
let work: string;

before(async () => {
  if (!CODEX && !GEMINI) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-sessions-'));
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4141\n');
  mkdirSync(join(work, '.gemini'));
  writeFileSync(
    join(work, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true },
    }),
  );
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(10);
  const cmd = `tool=exec_command,args=${encodeURIComponent(JSON.stringify({ cmd: 'cat notes.txt' }))}`;
  await gw.admin.line({ name: 'honest', baseUrl: scenarioBase(mock, cmd), models: ['gpt-4.1'] });
  await gw.admin.line({ name: 'looping', baseUrl: scenarioBase(mock, `${cmd},loop`), models: ['gpt-4.1-mini'] });
  // Gemini CLI's tools differ: the mock calls the first one offered, the same way every round.
  await gw.admin.line({ name: 'gemini-honest', baseUrl: scenarioBase(mock, ''), models: ['gpt-4o-mini'] });
  await gw.admin.line({ name: 'gemini-looping', baseUrl: scenarioBase(mock, 'loop'), models: ['gpt-4o'] });
});

after(async () => {
  if (!CODEX && !GEMINI) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

async function codex(model: string, key: string): Promise<string> {
  const home = mkdtempSync(join(work, 'codex-home-'));
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
  const out = await new Promise<string>((resolve) => {
    const child = execFile(
      CODEX!,
      ['exec', '--json', '--skip-git-repo-check', 'What does notes.txt say?'],
      { cwd: work, env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, TOLLGATE_KEY: key }, timeout: 120_000 },
      (_err, stdout) => resolve(stdout),
    );
    child.stdin?.end();
  });
  const started = out.split('\n').find((l) => l.includes('"thread.started"'));
  return (JSON.parse(started!) as { thread_id: string }).thread_id;
}

function gemini(model: string, key: string): Promise<string> {
  return new Promise((resolve) => {
    const child = execFile(
      GEMINI!,
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
        timeout: 120_000,
      },
      (_err, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
    );
    child.stdin?.end();
  });
}

test(
  'a Codex run is recognised as Codex, its session by its own id',
  { skip: CODEX ? false : 'set CODEX_BIN to run', timeout: 180_000 },
  async () => {
    const key = await gw.admin.key('codex-s');
    const thread = await codex('gpt-4.1', key);
    const { sessions } = await gw.admin.call('listSessions', { query: { key: 'codex-s' } });
    assert.deepEqual(
      sessions.map((s) => [s.id, s.tool, s.requests]),
      [[thread, 'codex', 2]],
    );
  },
);

test(
  'a looping Codex session is paused, and Codex stops at the refusal',
  { skip: CODEX ? false : 'set CODEX_BIN to run', timeout: 180_000 },
  async () => {
    const key = await gw.admin.key('codex-loop', { loopLimit: 3 });
    const thread = await codex('gpt-4.1-mini', key);
    const { session, requests } = await gw.admin.call('getSession', { params: { id: thread } });
    assert.equal(session.pause?.guard, 'loop', JSON.stringify(requests.map((r) => r.status)));
    assert.equal(requests.filter((r) => r.status === 400).length, 1, 'the refusal was not retried');
  },
);

test(
  'a Gemini CLI run is recognised as Gemini CLI, with a session Tollgate made',
  { skip: GEMINI ? false : 'set GEMINI_BIN to run', timeout: 180_000 },
  async () => {
    const key = await gw.admin.key('gemini-s');
    await gemini('gpt-4o-mini', key);
    const { sessions } = await gw.admin.call('listSessions', { query: { key: 'gemini-s' } });
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.tool, 'gemini-cli');
    assert.match(sessions[0]!.id, /^tg-[0-9a-f]{12}$/);
    assert.ok(sessions[0]!.requests >= 2);
  },
);

test(
  'a looping Gemini CLI session is paused, and Gemini CLI stops at the refusal',
  { skip: GEMINI ? false : 'set GEMINI_BIN to run', timeout: 180_000 },
  async () => {
    const key = await gw.admin.key('gemini-loop', { loopLimit: 3 });
    const out = await gemini('gpt-4o', key);
    const [s] = (await gw.admin.call('listSessions', { query: { key: 'gemini-loop' } })).sessions;
    const { session, requests } = await gw.admin.call('getSession', { params: { id: s!.id } });
    assert.equal(session.pause?.guard, 'loop', JSON.stringify(requests.map((r) => r.status)));
    assert.equal(requests.filter((r) => r.status === 400).length, 1, 'the refusal was not retried');
    assert.match(out, /Tollgate paused this session/);
  },
);
