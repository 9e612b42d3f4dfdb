import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GatewayError } from '../../gateway/core/errors.js';
import { connectTool, disconnectTool, readRecord } from '../../gateway/connect/index.js';
import { json } from '../../gateway/connect/formats/json.js';
import { toml } from '../../gateway/connect/formats/toml.js';
import { sandbox, WIRING } from './fixture.js';

const CODEX = `# by hand
model = "gpt-5" # mine
[mcp_servers.docs]
command = "npx"

[model_providers.other]
name = "Other"
`;
const GEMINI_SETTINGS =
  '{\n  "ui": { "theme": "GitHub" }, // mine\n  "security": { "auth": { "selectedType": "oauth-personal" } }\n}\n';

test('an unchanged file goes back byte for byte, with its permissions', async () => {
  const box = sandbox();
  try {
    box.write('.codex/config.toml', CODEX, 0o644);
    box.write('.gemini/settings.json', GEMINI_SETTINGS, 0o600);
    box.write('.gemini/.env', 'GEMINI_API_KEY=my-real-key\n', 0o600);
    await connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' });
    await connectTool(box, { tool: 'gemini-cli', wiring: WIRING, keyName: 'gemini-cli' });
    assert.notEqual(box.read('.codex/config.toml'), CODEX);
    const codex = await disconnectTool(box, 'codex');
    const gemini = await disconnectTool(box, 'gemini-cli');
    assert.equal(box.read('.codex/config.toml'), CODEX);
    assert.equal(box.read('.gemini/settings.json'), GEMINI_SETTINGS);
    assert.equal(box.read('.gemini/.env'), 'GEMINI_API_KEY=my-real-key\n');
    assert.equal(box.mode('.codex/config.toml'), 0o644);
    assert.equal(box.mode('.gemini/.env'), 0o600);
    assert.deepEqual(
      codex.files.map((f) => f.action),
      ['restored'],
    );
    assert.deepEqual(
      gemini.files.map((f) => f.action),
      ['restored', 'restored'],
    );
    assert.equal(await readRecord(box.dataDir, 'codex'), undefined);
  } finally {
    box.done();
  }
});

test('files that did not exist are removed again, and the folder connect made if it is empty', async () => {
  const box = sandbox();
  try {
    await connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' });
    await connectTool(box, { tool: 'gemini-cli', wiring: WIRING, keyName: 'gemini-cli' });
    // Codex keeps its own files in its home once it has run; that folder must stay.
    writeFileSync(box.path('.codex/history.jsonl'), '{}\n');
    const codex = await disconnectTool(box, 'codex');
    await disconnectTool(box, 'gemini-cli');
    assert.deepEqual(
      codex.files.map((f) => f.action),
      ['removed'],
    );
    assert.equal(existsSync(box.path('.codex/config.toml')), false);
    assert.equal(existsSync(box.path('.codex/history.jsonl')), true);
    assert.equal(existsSync(box.path('.gemini')), false, 'the empty ~/.gemini connect created is gone');
  } finally {
    box.done();
  }
});

test('reconnecting with another model keeps the first backup: disconnect still restores the original bytes', async () => {
  const box = sandbox();
  try {
    box.write('.codex/config.toml', CODEX);
    await connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' });
    await connectTool(box, { tool: 'codex', wiring: { ...WIRING, model: 'gpt-4.1' }, keyName: 'codex' });
    assert.equal((await readRecord(box.dataDir, 'codex'))!.model, 'gpt-4.1');
    await disconnectTool(box, 'codex');
    assert.equal(box.read('.codex/config.toml'), CODEX);
  } finally {
    box.done();
  }
});

test('a file changed by hand since connect keeps the change; only Tollgate’s entries go, and their old values come back', async () => {
  const box = sandbox();
  try {
    box.write('.codex/config.toml', CODEX);
    await connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' });
    const edited = toml.edit(box.read('.codex/config.toml'), [{ path: ['approval_policy'], value: 'never' }]);
    box.write('.codex/config.toml', edited);
    const result = await disconnectTool(box, 'codex');
    assert.equal(result.files[0]!.action, 'cleaned');
    assert.match(result.files[0]!.notes[0]!, /changed by hand since connect/);
    assert.equal(box.read('.codex/config.toml'), toml.edit(CODEX, [{ path: ['approval_policy'], value: 'never' }]));
  } finally {
    box.done();
  }
});

test('an entry of ours the user changed by hand is kept, and the result says so', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', '{\n  "theme": "dark"\n}\n');
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    box.write(
      '.claude/settings.json',
      json.edit(box.read('.claude/settings.json'), [{ path: ['env', 'ANTHROPIC_MODEL'], value: 'my-choice' }]),
    );
    const result = await disconnectTool(box, 'claude-code');
    assert.deepEqual(JSON.parse(box.read('.claude/settings.json')), {
      theme: 'dark',
      env: { ANTHROPIC_MODEL: 'my-choice' },
    });
    assert.ok(
      result.files[0]!.notes.some(
        (n) => n === 'kept env.ANTHROPIC_MODEL: changed by hand to "my-choice" since connect',
      ),
      result.files[0]!.notes.join('\n'),
    );
  } finally {
    box.done();
  }
});

test('a table that only held our entries goes with them; one that was there before stays', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', '{\n  "theme": "dark"\n}\n');
    box.write('.gemini/settings.json', '{\n  "security": { "folderTrust": { "enabled": true } }\n}\n');
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    await connectTool(box, { tool: 'gemini-cli', wiring: WIRING, keyName: 'gemini-cli' });
    box.write(
      '.claude/settings.json',
      json.edit(box.read('.claude/settings.json'), [{ path: ['verbose'], value: true }]),
    );
    box.write(
      '.gemini/settings.json',
      json.edit(box.read('.gemini/settings.json'), [{ path: ['ui', 'theme'], value: 'x' }]),
    );
    await disconnectTool(box, 'claude-code');
    await disconnectTool(box, 'gemini-cli');
    assert.deepEqual(JSON.parse(box.read('.claude/settings.json')), { theme: 'dark', verbose: true });
    assert.deepEqual(JSON.parse(box.read('.gemini/settings.json')), {
      security: { folderTrust: { enabled: true } },
      ui: { theme: 'x' },
    });
  } finally {
    box.done();
  }
});

test('a file broken by hand since connect is refused with a way out; --force restores and keeps the broken one', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', '{\n  "theme": "dark"\n}\n');
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    box.write('.claude/settings.json', '{ "theme": "dark", oops }\n');
    await assert.rejects(
      disconnectTool(box, 'claude-code'),
      (e: unknown) =>
        e instanceof GatewayError &&
        e.status === 409 &&
        /is not valid JSON/.test(e.message) &&
        /--force/.test(e.message),
    );
    assert.equal(box.read('.claude/settings.json'), '{ "theme": "dark", oops }\n', 'nothing written');
    assert.ok(await readRecord(box.dataDir, 'claude-code'), 'still connected');
    const forced = await disconnectTool(box, 'claude-code', { force: true });
    assert.equal(box.read('.claude/settings.json'), '{\n  "theme": "dark"\n}\n');
    const kept = /kept at (.+)$/.exec(forced.files[0]!.notes.at(-1)!)![1]!;
    assert.equal(readFileSync(kept, 'utf8'), '{ "theme": "dark", oops }\n');
  } finally {
    box.done();
  }
});

test('a file deleted by hand is left alone; nothing else is blocked', async () => {
  const box = sandbox();
  try {
    box.write('.gemini/settings.json', '{}\n');
    box.write('.gemini/.env', 'A=1\n');
    await connectTool(box, { tool: 'gemini-cli', wiring: WIRING, keyName: 'gemini-cli' });
    rmSync(box.path('.gemini/.env'));
    const result = await disconnectTool(box, 'gemini-cli');
    assert.deepEqual(
      result.files.map((f) => f.action),
      ['restored', 'missing'],
    );
    assert.equal(existsSync(box.path('.gemini/.env')), false);
    assert.equal(box.read('.gemini/settings.json'), '{}\n');
  } finally {
    box.done();
  }
});

test('disconnecting a tool that is not connected says so', async () => {
  const box = sandbox();
  try {
    await assert.rejects(
      disconnectTool(box, 'codex'),
      (e: unknown) =>
        e instanceof GatewayError && e.status === 404 && /Codex CLI was not connected by Tollgate/.test(e.message),
    );
    await assert.rejects(
      disconnectTool(box, 'vim'),
      (e: unknown) => e instanceof GatewayError && e.code === 'unknown_tool',
    );
  } finally {
    box.done();
  }
});

test('a backup that was tampered with stops the undo', async () => {
  const box = sandbox();
  try {
    box.write('.codex/config.toml', CODEX);
    const { record } = await connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' });
    writeFileSync(record.files[0]!.backup!, 'model = "evil"\n');
    await assert.rejects(disconnectTool(box, 'codex'), /backup of .* was changed/);
    assert.ok(readFileSync(join(box.path('.codex'), 'config.toml'), 'utf8').includes('model_provider = "tollgate"'));
  } finally {
    box.done();
  }
});
