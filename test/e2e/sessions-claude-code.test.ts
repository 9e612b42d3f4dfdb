/**
 * Agent sessions with the real Claude Code (CLAUDE_BIN): two runs are two sessions whose costs add
 * up to the log; a looping upstream (the mock asks for the same Read for ever) is paused by the
 * loop guard within K rounds and Claude Code stops; a capped session pauses while a new session of
 * the same key works; a spent budget window refuses and names when it frees. Skipped without the CLI.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runClaudeToEnd as runClaude } from '../helpers/claude-cli.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioOrigin, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const CLAUDE = process.env.CLAUDE_BIN;
const skip = CLAUDE ? false : 'set CLAUDE_BIN to run';
let mock: MockUpstream;
let gw: TestGateway;
let work: string;

before(async () => {
  if (!CLAUDE) return;
  work = mkdtempSync(join(tmpdir(), 'tollgate-cc-sessions-'));
  writeFileSync(join(work, 'notes.txt'), 'the launch code is 4141\n');
  mock = await startMockUpstream();
  gw = await startGateway();
  process.env.TOLLGATE_TEST_UPSTREAM_KEY = 'upstream-secret';
  await gw.admin.topup(10);
  const read = `tool=Read,args=${encodeURIComponent(JSON.stringify({ file_path: join(work, 'notes.txt') }))}`;
  // claude-opus-4-7 answers after one Read; claude-opus-4-6 asks for the same Read for ever.
  await gw.admin.line({
    name: 'honest',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, read),
    models: ['claude-opus-4-7', 'claude-haiku-4-5'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
  await gw.admin.line({
    name: 'looping',
    protocol: 'anthropic',
    baseUrl: scenarioOrigin(mock, `${read},loop`),
    models: ['claude-opus-4-6'],
    apiKeyEnv: 'TOLLGATE_TEST_UPSTREAM_KEY',
  });
});

after(async () => {
  if (!CLAUDE) return;
  await gw.close();
  await mock.close();
  rmSync(work, { recursive: true, force: true });
});

const claude = (key: string, model = 'claude-opus-4-7') =>
  runClaude(CLAUDE!, ['-p', 'Read notes.txt and tell me what it says'], {
    work,
    gatewayUrl: gw.url,
    key,
    model,
    haikuModel: 'claude-haiku-4-5',
  });

test('two Claude Code runs are two sessions whose costs add up to the log', { skip, timeout: 240_000 }, async () => {
  const key = await gw.admin.key('cc-two');
  const a = await claude(key);
  const b = await claude(key);
  assert.notEqual(a.session_id, b.session_id);
  const { sessions } = await gw.admin.call('listSessions', { query: { key: 'cc-two' } });
  assert.deepEqual(sessions.map((s) => s.id).sort(), [a.session_id, b.session_id].sort());
  assert.ok(sessions.every((s) => s.tool === 'claude-code' && s.project === 'cc-two' && s.requests >= 2));
  const logged = (await gw.admin.logs({ key: 'cc-two' })).reduce((sum, r) => sum + r.costMicro, 0);
  assert.equal(
    sessions.reduce((sum, s) => sum + s.costMicro, 0),
    logged,
  );
  assert.ok(logged > 0);
});

test(
  'a looping Claude Code session is paused by the loop guard within K rounds, and Claude Code stops',
  { skip, timeout: 240_000 },
  async () => {
    const key = await gw.admin.key('cc-loop', { loopLimit: 5 });
    const run = await claude(key, 'claude-opus-4-6');
    assert.equal(run.is_error, true);
    assert.match(run.result, /Tollgate paused this session .*same tool call, Read .*5 times in a row/);
    const { session, requests } = await gw.admin.call('getSession', { params: { id: run.session_id } });
    assert.equal(session.pause?.guard, 'loop');
    assert.match(session.pause?.call ?? '', /^Read \{"file_path":/);
    const refused = requests.filter((r) => r.status === 400);
    assert.equal(refused.length, 1, 'Claude Code did not retry the refusal');
    // Upstream saw the user's turn and the rounds before the fifth repeat; Claude Code's first Read
    // returns the file and its repeats "unchanged", so the repeats start with the second round.
    const served = requests.filter((r) => r.model === 'claude-opus-4-6' && r.status === 200).length;
    assert.ok(
      served <= 5 + 1,
      `${served} served: ${requests.map((r) => `${r.model}:${r.status}:${r.agent ?? ''}`).join(' ')}`,
    );
    assert.ok(session.costMicro < 500_000, `paused at ${session.costMicro} µ$: cents, not the $10 wallet`);
  },
);

test(
  'a capped Claude Code session pauses while a new session of the same key works',
  { skip, timeout: 240_000 },
  async () => {
    const key = await gw.admin.key('cc-cap', { sessionCapMicro: 1, loopLimit: 0 });
    const first = await claude(key);
    const second = await claude(key);
    const one = await gw.admin.call('getSession', { params: { id: first.session_id } });
    assert.equal(one.session.state, 'paused');
    assert.match(first.result, /session cap of \$0\.000001 is reached/);
    const two = await gw.admin.call('getSession', { params: { id: second.session_id } });
    assert.equal(two.requests[0]?.status, 200, 'the new session was served');
  },
);

test('a spent budget window refuses Claude Code and names when it frees room', { skip, timeout: 240_000 }, async () => {
  const key = await gw.admin.key('cc-budget', { budgets: { '5h': 1_000 } });
  await claude(key);
  const refused = await claude(key);
  assert.equal(refused.is_error, true);
  assert.match(refused.result, /5h budget of \$0\.001.*frees room at .* UTC \(in [45] h/);
});
