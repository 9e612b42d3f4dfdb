import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { connectStatus, connectTool, type GatewayView, type ToolStatus } from '../../gateway/connect/index.js';
import { sha256 } from '../../gateway/connect/files.js';
import { json } from '../../gateway/connect/formats/json.js';
import { sandbox, SECRET, WIRING } from './fixture.js';

const VIEW: GatewayView = {
  origin: 'http://127.0.0.1:4141',
  keys: [{ name: 'claude-code', state: 'enabled', hash: sha256(SECRET) }],
  models: ['claude-sonnet-4-6', 'claude-haiku-4-5'],
};

const of = (all: ToolStatus[], tool: string): ToolStatus => all.find((s) => s.tool === tool)!;

test('a connected tool that still matches: key, models, URL and file all as written', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', '{}\n');
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    const all = await connectStatus(box, VIEW);
    assert.deepEqual(
      all.map((s) => s.tool),
      ['claude-code', 'codex', 'gemini-cli', 'opencode'],
    );
    const cc = of(all, 'claude-code');
    assert.equal(cc.connected, true);
    assert.equal(cc.matches, true, cc.problems.join('; '));
    assert.equal(cc.keyName, 'claude-code');
    assert.equal(cc.model, 'claude-sonnet-4-6');
    assert.equal(cc.smallModel, 'claude-haiku-4-5');
    assert.equal(cc.baseUrl, 'http://127.0.0.1:4141');
    assert.equal(cc.pointsAtTollgate, true);
    assert.deepEqual(cc.files, [{ path: box.path('.claude/settings.json'), state: 'as-written' }]);
    const codex = of(all, 'codex');
    assert.equal(codex.connected, false);
    assert.equal(codex.matches, false);
    assert.deepEqual(codex.files, []);
  } finally {
    box.done();
  }
});

test('a tool pointed at Tollgate by hand shows as pointing at it, not as connected', async () => {
  const box = sandbox();
  try {
    box.write('.gemini/.env', 'GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4141\n');
    const gemini = of(await connectStatus(box, VIEW), 'gemini-cli');
    assert.equal(gemini.connected, false);
    assert.equal(gemini.pointsAtTollgate, true);
    assert.equal(gemini.baseUrl, 'http://127.0.0.1:4141');
  } finally {
    box.done();
  }
});

test('what no longer matches is said, one problem at a time, without the secret', async () => {
  const box = sandbox();
  try {
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    const problems = async (view: GatewayView): Promise<string[]> =>
      of(await connectStatus(box, view), 'claude-code').problems;
    assert.deepEqual(await problems({ ...VIEW, keys: [{ ...VIEW.keys[0]!, state: 'disabled' }] }), [
      'the key "claude-code" is disabled',
    ]);
    assert.deepEqual(await problems({ ...VIEW, keys: [] }), [
      'the key "claude-code" was deleted: connect again to get a new one',
    ]);
    assert.deepEqual(await problems({ ...VIEW, keys: [{ ...VIEW.keys[0]!, hash: sha256('sk-other') }] }), [
      `the key written to Claude Code's files is not the key "claude-code" any more: connect again`,
    ]);
    assert.deepEqual(await problems({ ...VIEW, models: ['claude-sonnet-4-6'] }), [
      'the small/fast model claude-haiku-4-5 is not served by any line now',
    ]);
    assert.deepEqual(await problems({ ...VIEW, origin: 'http://127.0.0.1:5000' }), [
      'Claude Code points at http://127.0.0.1:4141, but Tollgate now runs at http://127.0.0.1:5000: connect again',
    ]);

    box.write(
      '.claude/settings.json',
      json.edit(box.read('.claude/settings.json'), [
        { path: ['env', 'ANTHROPIC_AUTH_TOKEN'], value: 'sk-mine' },
        { path: ['env', 'ANTHROPIC_MODEL'], value: 'opus' },
        { path: ['theme'], value: 'light' },
      ]),
    );
    const cc = of(await connectStatus(box, VIEW), 'claude-code');
    assert.equal(cc.files[0]!.state, 'changed');
    assert.deepEqual(cc.problems, [
      `the key (env.ANTHROPIC_AUTH_TOKEN) in ${box.path('.claude/settings.json')} was changed by hand`,
      `the model (env.ANTHROPIC_MODEL) in ${box.path('.claude/settings.json')} was changed by hand to "opus"`,
    ]);
    assert.equal(cc.matches, false);
    assert.ok(!JSON.stringify(cc).includes(SECRET));

    rmSync(box.path('.claude/settings.json'));
    const gone = of(await connectStatus(box, VIEW), 'claude-code');
    assert.deepEqual(gone.problems, [`${box.path('.claude/settings.json')} was deleted since connect`]);
    assert.equal(gone.pointsAtTollgate, false);
  } finally {
    box.done();
  }
});

test('a hand edit elsewhere in the file is not a problem', async () => {
  const box = sandbox();
  try {
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    box.write(
      '.claude/settings.json',
      json.edit(box.read('.claude/settings.json'), [{ path: ['theme'], value: 'light' }]),
    );
    const cc = of(await connectStatus(box, VIEW), 'claude-code');
    assert.equal(cc.files[0]!.state, 'changed');
    assert.equal(cc.matches, true, cc.problems.join('; '));
  } finally {
    box.done();
  }
});

test('a file broken by hand is reported, not thrown', async () => {
  const box = sandbox();
  try {
    await connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' });
    box.write('.codex/config.toml', 'model = \n');
    const codex = of(
      await connectStatus(box, { ...VIEW, keys: [{ name: 'codex', state: 'enabled', hash: sha256(SECRET) }] }),
      'codex',
    );
    assert.equal(codex.files[0]!.state, 'invalid');
    assert.match(codex.problems[0]!, /config\.toml is not valid TOML/);
  } finally {
    box.done();
  }
});
