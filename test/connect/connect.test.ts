import assert from 'node:assert/strict';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GatewayError } from '../../gateway/core/errors.js';
import { connectTool, disconnectTool, planConnect, readRecord } from '../../gateway/connect/index.js';
import { sandbox, SECRET, WIRING } from './fixture.js';

const CLAUDE_SETTINGS = `{
  // mine
  "permissions": { "allow": ["Bash(npm test)"] },
  "env": { "DEBUG": "1" },
  "somethingNewerThanTollgate": { "x": [1, 2] }
}
`;

test('a dry run computes the diff, with the key masked, and writes nothing', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', CLAUDE_SETTINGS);
    const plan = await planConnect(box, 'claude-code', WIRING);
    assert.equal(plan.changes, true);
    const [file] = plan.files;
    assert.equal(file!.path, box.path('.claude/settings.json'));
    assert.match(file!.diff, /^\+.*"ANTHROPIC_AUTH_TOKEN": "sk-…abcd"/m);
    assert.match(file!.diff, /^\+.*"ANTHROPIC_BASE_URL": "http:\/\/127\.0\.0\.1:4141"/m);
    assert.ok(!file!.diff.includes(SECRET), 'the secret is not in the diff');
    assert.equal(box.read('.claude/settings.json'), CLAUDE_SETTINGS);
    assert.equal(existsSync(box.dataDir), false, 'no record, no backup');
  } finally {
    box.done();
  }
});

test("connect writes the entries, keeps the owner's permissions and everything else, backs up and records without the secret", async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', CLAUDE_SETTINGS, 0o740);
    const { record } = await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    const after = box.read('.claude/settings.json');
    assert.equal(
      box.mode('.claude/settings.json'),
      0o700,
      "the owner's bits kept; the group's dropped, as it holds the key",
    );
    for (const line of [
      '  // mine',
      '  "permissions": { "allow": ["Bash(npm test)"] },',
      '  "somethingNewerThanTollgate": { "x": [1, 2] }',
    ])
      assert.ok(after.includes(line), line);
    assert.match(
      after,
      /"DEBUG": "1",\n\s+"ANTHROPIC_BASE_URL": "http:\/\/127\.0\.0\.1:4141",\n\s+"ANTHROPIC_AUTH_TOKEN": "sk-T+abcd",\n\s+"ANTHROPIC_MODEL": "claude-sonnet-4-6",\n\s+"ANTHROPIC_DEFAULT_HAIKU_MODEL": "claude-haiku-4-5"/,
    );
    assert.equal(record.keyName, 'claude-code');
    assert.equal(record.model, 'claude-sonnet-4-6');
    assert.equal(record.smallModel, 'claude-haiku-4-5');
    const [file] = record.files;
    assert.equal(file!.existed, true);
    assert.equal(file!.exact, true);
    assert.equal(readFileSync(file!.backup!, 'utf8'), CLAUDE_SETTINGS);
    assert.equal(lstatSync(file!.backup!).mode & 0o777, 0o600, 'the backup is private');
    for (const f of readdirSync(join(box.dataDir, 'connect'))) {
      if (f.endsWith('.json'))
        assert.ok(!readFileSync(join(box.dataDir, 'connect', f), 'utf8').includes(SECRET), `${f} holds no secret`);
    }
    assert.deepEqual(await readRecord(box.dataDir, 'claude-code'), record);
  } finally {
    box.done();
  }
});

test('a missing file and its folder are created, private', async () => {
  const box = sandbox();
  try {
    const { record } = await connectTool(box, {
      tool: 'codex',
      wiring: { ...WIRING, model: 'gpt-5' },
      keyName: 'codex',
    });
    const text = box.read('.codex/config.toml');
    assert.equal(
      text,
      [
        'model = "gpt-5"',
        'model_provider = "tollgate"',
        '',
        '[model_providers]',
        '',
        '[model_providers.tollgate]',
        'name = "Tollgate"',
        'base_url = "http://127.0.0.1:4141/v1"',
        'wire_api = "responses"',
        `experimental_bearer_token = "${SECRET}"`,
        '',
      ].join('\n'),
    );
    assert.equal(box.mode('.codex/config.toml'), 0o600);
    assert.equal(box.mode('.codex'), 0o700);
    assert.deepEqual(record.files[0]!.createdDirs, [box.path('.codex')]);
    assert.equal(record.files[0]!.backup, null);
  } finally {
    box.done();
  }
});

test("each tool's own location variable is honoured", async () => {
  const box = sandbox({ CODEX_HOME: '/x' });
  try {
    const env = {
      CLAUDE_CONFIG_DIR: join(box.root, 'cc'),
      CODEX_HOME: join(box.root, 'cx'),
      GEMINI_CLI_HOME: join(box.root, 'gh'),
    };
    const where = { ...box, env };
    assert.equal(
      (await planConnect(where, 'claude-code', WIRING)).files[0]!.path,
      join(box.root, 'cc', 'settings.json'),
    );
    assert.equal((await planConnect(where, 'codex', WIRING)).files[0]!.path, join(box.root, 'cx', 'config.toml'));
    assert.deepEqual(
      (await planConnect(where, 'gemini-cli', WIRING)).files.map((f) => f.path),
      [join(box.root, 'gh', '.gemini', 'settings.json'), join(box.root, 'gh', '.gemini', '.env')],
    );
    assert.deepEqual(
      (await planConnect({ home: box.home, env: {} }, 'gemini-cli', WIRING)).files.map((f) => f.path),
      [box.path('.gemini/settings.json'), box.path('.gemini/.env')],
    );
  } finally {
    box.done();
  }
});

test('Gemini CLI gets its settings and its .env', async () => {
  const box = sandbox();
  try {
    box.write('.gemini/settings.json', '{\n  "ui": { "theme": "GitHub" }\n}\n');
    box.write('.gemini/.env', '# mine\nGOOGLE_CLOUD_PROJECT=p\n');
    await connectTool(box, {
      tool: 'gemini-cli',
      wiring: { ...WIRING, model: 'gemini-2.5-flash' },
      keyName: 'gemini-cli',
    });
    assert.deepEqual(JSON.parse(box.read('.gemini/settings.json')), {
      ui: { theme: 'GitHub' },
      security: { auth: { selectedType: 'gemini-api-key' } },
      model: { name: 'gemini-2.5-flash' },
    });
    assert.equal(
      box.read('.gemini/.env'),
      `# mine\nGOOGLE_CLOUD_PROJECT=p\nGEMINI_API_KEY=${SECRET}\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4141\n`,
    );
  } finally {
    box.done();
  }
});

test('a file that does not parse is refused and nothing is written, recorded or backed up', async () => {
  const box = sandbox();
  try {
    const broken = 'model = "gpt-5"\n[model_providers.x\n';
    box.write('.codex/config.toml', broken);
    await assert.rejects(
      connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' }),
      (e: unknown) =>
        e instanceof GatewayError &&
        e.status === 409 &&
        e.code === 'file_invalid' &&
        e.message.includes(box.path('.codex/config.toml')) &&
        e.message.includes('Tollgate changed nothing'),
    );
    assert.equal(box.read('.codex/config.toml'), broken);
    assert.equal(await readRecord(box.dataDir, 'codex'), undefined);
    assert.equal(existsSync(join(box.dataDir, 'connect', 'backups')), false);
  } finally {
    box.done();
  }
});

test('a value in the way that is not a table is refused', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', '{ "env": "oops" }\n');
    await assert.rejects(
      connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' }),
      /"env" is a string, not a table/,
    );
    assert.equal(box.read('.claude/settings.json'), '{ "env": "oops" }\n');
  } finally {
    box.done();
  }
});

test('two tools connect at the same time; the same tool twice at once is refused, not interleaved', async () => {
  const box = sandbox();
  try {
    const [a, b] = await Promise.all([
      connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' }),
      connectTool(box, { tool: 'codex', wiring: WIRING, keyName: 'codex' }),
    ]);
    assert.equal(a.record.tool, 'claude-code');
    assert.equal(b.record.tool, 'codex');
    assert.ok(await readRecord(box.dataDir, 'claude-code'));
    assert.ok(await readRecord(box.dataDir, 'codex'));

    const same = await Promise.allSettled([
      connectTool(box, { tool: 'gemini-cli', wiring: WIRING, keyName: 'gemini-cli' }),
      connectTool(box, { tool: 'gemini-cli', wiring: { ...WIRING, model: 'other' }, keyName: 'gemini-cli' }),
    ]);
    assert.ok(same.some((r) => r.status === 'fulfilled'));
    for (const r of same) if (r.status === 'rejected') assert.equal((r.reason as GatewayError).code, 'connect_busy');
    assert.equal(existsSync(join(box.dataDir, 'connect', 'gemini-cli.lock')), false, 'the lock is released');
  } finally {
    box.done();
  }
});

test('a symlinked config is written at its target and stays a link', async () => {
  const box = sandbox();
  try {
    const real = join(box.root, 'dotfiles-claude.json');
    writeFileSync(real, '{}\n');
    box.write('.claude/.keep', '');
    symlinkSync(real, box.path('.claude/settings.json'));
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    assert.ok(lstatSync(box.path('.claude/settings.json')).isSymbolicLink());
    assert.equal(JSON.parse(readFileSync(real, 'utf8')).env.ANTHROPIC_MODEL, 'claude-sonnet-4-6');
  } finally {
    box.done();
  }
});

test('a preview that no longer matches the file is refused', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', '{}\n');
    const plan = await planConnect(box, 'claude-code', WIRING);
    box.write('.claude/settings.json', '{ "theme": "light" }\n');
    await assert.rejects(
      connectTool(box, {
        tool: 'claude-code',
        wiring: WIRING,
        keyName: 'claude-code',
        expect: { settings: plan.files[0]!.beforeSha256 },
      }),
      (e: unknown) => e instanceof GatewayError && e.code === 'file_changed',
    );
    assert.equal(box.read('.claude/settings.json'), '{ "theme": "light" }\n');
  } finally {
    box.done();
  }
});

test('an existing world-readable tool config is written 0600 once it holds the key, and disconnect gives its mode back', async () => {
  const box = sandbox();
  try {
    box.write('.claude/settings.json', CLAUDE_SETTINGS, 0o644);
    box.write('.gemini/.env', 'OTHER=1\n', 0o644);
    await connectTool(box, { tool: 'claude-code', wiring: WIRING, keyName: 'claude-code' });
    await connectTool(box, {
      tool: 'gemini-cli',
      wiring: { ...WIRING, model: 'gemini-2.5-flash' },
      keyName: 'gemini-cli',
    });
    for (const rel of ['.claude/settings.json', '.gemini/.env']) {
      assert.ok(box.read(rel).includes(SECRET), `${rel} holds the key`);
      assert.equal(box.mode(rel), 0o600, `${rel} is private`);
    }
    // Connected again (a new model): still private.
    await connectTool(box, {
      tool: 'claude-code',
      wiring: { ...WIRING, model: 'claude-opus-4-6' },
      keyName: 'claude-code',
    });
    assert.equal(box.mode('.claude/settings.json'), 0o600);
    await disconnectTool(box, 'claude-code');
    assert.equal(box.read('.claude/settings.json'), CLAUDE_SETTINGS);
    assert.equal(box.mode('.claude/settings.json'), 0o644, 'the key gone, the file is as it was');
  } finally {
    box.done();
  }
});
