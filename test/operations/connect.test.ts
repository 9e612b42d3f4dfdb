/**
 * The connect routes through the typed client, against an in-process gateway whose tools live in
 * a temporary HOME: previews that write nothing, one key per tool (created, reused, refused,
 * rotated, deleted on disconnect), models checked against the lines, hand edits seen by status,
 * shell exports, and no secret in the data dir, the ledger or any reply but env's.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CallArgs, Reply, RouteName } from '../../gateway/contract/admin/index.js';
import { hashSecret } from '../../gateway/keys/secret.js';
import { refusal, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});

after(async () => {
  await mock.close();
});

/** A fresh gateway and HOME with two lines: Anthropic models and OpenAI models, on the mock upstream. */
async function withGateway(
  fn: (gw: TestGateway, call: Caller) => Promise<void>,
  env?: Record<string, string>,
): Promise<void> {
  const gw = await startGateway(undefined, undefined, env ? { env } : {});
  try {
    await gw.admin.topup(5);
    await gw.admin.line({
      name: 'anthropic',
      protocol: 'anthropic',
      baseUrl: mock.url,
      models: ['claude-sonnet-4-6', 'claude-haiku-4-5'],
    });
    await gw.admin.line({ name: 'openai', baseUrl: `${mock.url}/v1`, models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    await fn(gw, (name, ...args) => gw.admin.client.call(name, ...args));
  } finally {
    await gw.close();
  }
}
type Caller = <N extends RouteName>(name: N, ...args: CallArgs<N>) => Promise<Reply<N>>;

function put(home: string, rel: string, text: string): string {
  const path = join(home, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const keyNames = async (call: Caller): Promise<string[]> => (await call('listKeys')).keys.map((k) => k.name);

test('a dry run shows the diff with the key to come, and writes, creates and records nothing', async () => {
  await withGateway(async (gw, call) => {
    const settings = put(gw.home, '.claude/settings.json', '{\n  // mine\n  "theme": "dark"\n}\n');
    const preview = await call('connectTool', { params: { tool: 'claude' }, body: { dryRun: true } });
    assert.deepEqual(
      [preview.tool, preview.dryRun, preview.changes, preview.key],
      ['claude-code', true, true, { name: 'claude-code', action: 'create', last4: null }],
    );
    assert.match(preview.files[0]!.diff, /\+ {4}"ANTHROPIC_AUTH_TOKEN": "<new key claude-code>"/);
    assert.match(preview.files[0]!.diff, /\+ {4}"ANTHROPIC_BASE_URL": "http:\/\/127\.0\.0\.1:\d+"/);
    assert.equal(readFileSync(settings, 'utf8'), '{\n  // mine\n  "theme": "dark"\n}\n');
    assert.deepEqual(await keyNames(call), []);
    assert.deepEqual(filesUnder(join(gw.dataDir, 'connect')), [], 'no record, no backup');
    assert.equal((await call('connectStatus')).tools[0]!.connected, false);
    // Gemini CLI's files do not exist: still nothing on disk afterwards.
    await call('connectTool', { params: { tool: 'gemini' }, body: { dryRun: true } });
    assert.equal(existsSync(join(gw.home, '.gemini')), false);
  });
});

test('connect: default models per tool, a key of its own, the diff as written; unknown tools and unserved models refused', async () => {
  await withGateway(async (gw, call) => {
    const claude = await call('connectTool', { params: { tool: 'claude-code' }, body: {} });
    // The tool's own vendor first (newest first, as the preset lists them); the small model the cheapest of that vendor.
    assert.deepEqual(
      [claude.model, claude.smallModel, claude.key.action],
      ['claude-sonnet-4-6', 'claude-haiku-4-5', 'create'],
    );
    const codex = await call('connectTool', { params: { tool: 'codex' }, body: {} });
    assert.deepEqual([codex.model, codex.smallModel], ['gpt-5-mini', null]);
    // No Google model is served: the first served model of any vendor.
    const gemini = await call('connectTool', { params: { tool: 'gemini-cli' }, body: { dryRun: true } });
    assert.equal(gemini.model, 'claude-sonnet-4-6');
    assert.deepEqual(await keyNames(call), ['claude-code', 'codex']);
    // Each key says which tool Connect made it for (the Keys page shows it as a badge).
    assert.deepEqual(
      (await call('listKeys')).keys.map((k) => k.madeBy),
      ['claude-code', 'codex'],
    );
    const written = JSON.parse(readFileSync(join(gw.home, '.claude/settings.json'), 'utf8')) as {
      env: Record<string, string>;
    };
    const key = (await call('listKeys')).keys.find((k) => k.name === 'claude-code')!;
    assert.equal(written.env.ANTHROPIC_AUTH_TOKEN!.slice(-4), key.last4);
    assert.equal(claude.key.last4, key.last4);
    assert.ok(!JSON.stringify(claude).includes(written.env.ANTHROPIC_AUTH_TOKEN!), 'the reply never holds the secret');
    // The key works on the model API.
    const r = await fetch(`${gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${written.env.ANTHROPIC_AUTH_TOKEN}` },
    });
    assert.equal(r.status, 200);

    for (const route of [
      call('connectTool', { params: { tool: 'vim' }, body: {} }),
      call('disconnectTool', { params: { tool: 'vim' } }),
    ]) {
      const e = await refusal(route);
      assert.deepEqual([e.status, e.code], [404, 'unknown_tool']);
      assert.match(
        e.message,
        /Unknown tool "vim"\. Tollgate connects claude-code \(or claude\), codex, gemini-cli \(or gemini\)/,
      );
    }
    const unserved = await refusal(call('connectTool', { params: { tool: 'codex' }, body: { model: 'o3' } }));
    assert.deepEqual([unserved.status, unserved.code], [400, 'model_not_served']);
    assert.equal(
      unserved.message,
      'No line serves o3, so Codex CLI would get errors with it. Models your lines serve: claude-sonnet-4-6, claude-haiku-4-5, gpt-5-mini, gpt-4.1-mini.',
    );
    const unknown = await refusal(call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-9' } }));
    assert.deepEqual([unknown.status, unknown.code], [400, 'unknown_model']);
    const small = await refusal(
      call('connectTool', { params: { tool: 'codex' }, body: { smallModel: 'gpt-4.1-mini' } }),
    );
    assert.deepEqual([small.status, small.code], [400, 'no_small_model']);
    const smallUnserved = await refusal(
      call('connectTool', { params: { tool: 'claude' }, body: { smallModel: 'gemini-2.5-flash' } }),
    );
    assert.equal(smallUnserved.code, 'model_not_served');
  });
});

test("a key's group limits the models; with no line serving anything there is nothing to connect", async () => {
  await withGateway(async (gw, call) => {
    await call('addGroup', { body: { name: 'cheap', models: ['gpt-4.1-mini'] } });
    await call('createKey', { body: { name: 'cheap-key', group: 'cheap' } });
    const e = await refusal(
      call('connectTool', { params: { tool: 'codex' }, body: { key: 'cheap-key', model: 'gpt-5-mini' } }),
    );
    assert.deepEqual([e.status, e.code], [400, 'model_not_allowed']);
    assert.match(e.message, /group "cheap" may not use gpt-5-mini.*: gpt-4\.1-mini\.$/);
    for (const line of ['anthropic', 'openai']) await call('removeLine', { params: { name: line } });
    const none = await refusal(call('connectTool', { params: { tool: 'codex' }, body: {} }));
    assert.deepEqual([none.status, none.code], [409, 'no_served_models']);
    assert.equal((await call('connectStatus')).tools[0]!.suggested, null);
    assert.equal(existsSync(join(gw.home, '.codex')), false);
  });
});

test('keys: reused while a tool holds them, refused or rotated when not, rolled back when the write fails', async () => {
  await withGateway(async (gw, call) => {
    const first = await call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-5-mini' } });
    const again = await call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-4.1-mini' } });
    assert.deepEqual([again.key.action, again.key.last4], ['reuse', first.key.last4]);
    assert.match(again.files[0]!.diff, /-model = "gpt-5-mini"\n\+model = "gpt-4.1-mini"/);
    // Another tool may share the key: its secret is in Codex's files.
    const shared = await call('connectTool', { params: { tool: 'claude' }, body: { key: 'codex' } });
    assert.deepEqual([shared.key.action, shared.key.last4], ['reuse', first.key.last4]);
    assert.deepEqual(await keyNames(call), ['codex']);

    const laptop = (await call('createKey', { body: { name: 'laptop' } })).secret;
    const refused = await refusal(call('connectTool', { params: { tool: 'gemini' }, body: { key: 'laptop' } }));
    assert.deepEqual([refused.status, refused.code], [409, 'key_exists']);
    assert.match(refused.message, /keeps only its hash.*--key NAME.*--rotate-key/);
    const dry = await call('connectTool', {
      params: { tool: 'gemini' },
      body: { key: 'laptop', rotateKey: true, dryRun: true },
    });
    assert.match(dry.files.find((f) => f.id === 'env')!.diff, /\+GEMINI_API_KEY=<new secret of key laptop>/);
    assert.equal(
      (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${laptop}` } })).status,
      200,
      'a dry run rotates nothing',
    );
    const rotated = await call('connectTool', { params: { tool: 'gemini' }, body: { key: 'laptop', rotateKey: true } });
    assert.equal(rotated.key.action, 'rotate');
    assert.equal(
      (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${laptop}` } })).status,
      401,
      'the old secret stops working',
    );
    const env = readFileSync(join(gw.home, '.gemini/.env'), 'utf8');
    const secret = /GEMINI_API_KEY=(\S+)/.exec(env)![1]!;
    assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status, 200);

    // A write refused after the key was made (the file changed since the preview): the key goes again.
    const stale = await refusal(
      call('connectTool', { params: { tool: 'claude' }, body: { key: 'fresh', expect: { settings: 'f'.repeat(64) } } }),
    );
    assert.deepEqual([stale.status, stale.code], [409, 'file_changed']);
    assert.ok(!(await keyNames(call)).includes('fresh'), 'the key made for the failed connect is deleted');
    const spare = (await call('createKey', { body: { name: 'spare' } })).secret;
    const unrotated = await refusal(
      call('connectTool', {
        params: { tool: 'claude' },
        body: { key: 'spare', rotateKey: true, expect: { settings: null } },
      }),
    );
    assert.equal(unrotated.code, 'file_changed');
    assert.equal(
      (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${spare}` } })).status,
      200,
      'a failed rotation gives the key its old secret back',
    );
  });
});

test('disconnect: files back byte for byte, the key made for the tool deleted unless kept or shared; a tool never connected is refused', async () => {
  await withGateway(async (gw, call) => {
    const original = '# mine\nmodel = "o3"\n\n[analytics]\nenabled = false\n';
    const config = put(gw.home, '.codex/config.toml', original);
    const never = await refusal(call('disconnectTool', { params: { tool: 'gemini-cli' } }));
    assert.deepEqual(
      [never.status, never.code, never.message],
      [404, 'not_connected', 'Gemini CLI was not connected by Tollgate, so there is nothing to undo.'],
    );

    await call('connectTool', { params: { tool: 'codex' }, body: {} });
    await call('connectTool', { params: { tool: 'claude' }, body: { key: 'codex' } });
    const one = await call('disconnectTool', { params: { tool: 'codex' } });
    assert.deepEqual(one.key, { name: 'codex', action: 'kept', reason: 'Claude Code still uses it' });
    assert.deepEqual(one.files, [{ path: config, action: 'restored', notes: [] }]);
    assert.equal(readFileSync(config, 'utf8'), original);
    const two = await call('disconnectTool', { params: { tool: 'claude' } });
    assert.deepEqual([two.key.action, two.key.reason], ['kept', 'connect did not create it for Claude Code']);
    assert.equal(existsSync(join(gw.home, '.claude')), false, 'the folder connect made is gone');

    await call('connectTool', { params: { tool: 'gemini' }, body: {} });
    const kept = await call('disconnectTool', { params: { tool: 'gemini' }, query: { keepKey: true } });
    assert.deepEqual([kept.key.action, kept.key.reason], ['kept', 'asked to keep it']);
    assert.deepEqual(await keyNames(call), ['codex', 'gemini-cli']);
    await call('deleteKey', { params: { name: 'gemini-cli' } });
    // Connect again: the name is free, a new key is made, and disconnect deletes it.
    assert.equal((await call('connectTool', { params: { tool: 'gemini' }, body: {} })).key.action, 'create');
    const deleted = await call('disconnectTool', { params: { tool: 'gemini' } });
    assert.deepEqual(deleted.key, {
      name: 'gemini-cli',
      action: 'deleted',
      reason: 'it was made for Gemini CLI, and no file Tollgate wrote holds it any more',
    });
    assert.deepEqual(await keyNames(call), ['codex']);
  });
});

test('status after a hand edit names what changed; disconnect keeps the edit and takes out the rest', async () => {
  await withGateway(async (gw, call) => {
    const path = put(gw.home, '.claude/settings.json', '{\n  "permissions": { "allow": ["Read"] }\n}\n');
    await call('connectTool', { params: { tool: 'claude' }, body: {} });
    assert.equal(
      readFileSync(path, 'utf8').split('\n')[1],
      '  "permissions": { "allow": ["Read"] },',
      'the line before the new entries is kept as it was',
    );
    const text = readFileSync(path, 'utf8').replace(
      '"ANTHROPIC_MODEL": "claude-sonnet-4-6"',
      '"ANTHROPIC_MODEL": "gpt-5-mini"',
    );
    writeFileSync(path, text);
    const status = (await call('connectStatus')).tools.find((t) => t.tool === 'claude-code')!;
    assert.deepEqual(
      [status.connected, status.matches, status.pointsAtTollgate, status.files[0]!.state],
      [true, false, true, 'changed'],
    );
    assert.deepEqual(status.problems, [
      `the model (env.ANTHROPIC_MODEL) in ${path} was changed by hand to "gpt-5-mini"`,
    ]);
    await call('disableKey', { params: { name: 'claude-code' } });
    const disabled = (await call('connectStatus')).tools.find((t) => t.tool === 'claude-code')!;
    assert.ok(disabled.problems.includes('the key "claude-code" is disabled'), disabled.problems.join('; '));
    const undone = await call('disconnectTool', { params: { tool: 'claude' } });
    assert.equal(undone.files[0]!.action, 'cleaned');
    assert.equal(
      readFileSync(path, 'utf8'),
      '{\n  "permissions": { "allow": ["Read"] },\n  "env": {\n    "ANTHROPIC_MODEL": "gpt-5-mini"\n  }\n}\n',
    );
  });
});

test('env: the connected key from its files, a new key on request, or $TOLLGATE_KEY', async () => {
  await withGateway(async (gw, call) => {
    await call('connectTool', {
      params: { tool: 'claude' },
      body: { model: 'gpt-5-mini', smallModel: 'gpt-4.1-mini' },
    });
    const connected = await call('shellEnv', { params: { target: 'claude' }, body: {} });
    const secret = /ANTHROPIC_AUTH_TOKEN=(\S+)/.exec(connected.text)![1]!;
    assert.equal(hashSecret(secret), JSON.parse(readFileSync(join(gw.dataDir, 'config.json'), 'utf8')).keys[0].hash);
    assert.deepEqual(
      [connected.keySource, connected.keyName, connected.model],
      ['connected', 'claude-code', 'gpt-5-mini'],
    );
    assert.match(
      connected.text,
      /^export ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\n.*\nexport ANTHROPIC_MODEL=gpt-5-mini\nexport ANTHROPIC_DEFAULT_HAIKU_MODEL=gpt-4.1-mini\n$/s,
    );

    const variable = await call('shellEnv', { params: { target: 'openai' }, body: {} });
    assert.deepEqual([variable.keySource, variable.keyName, variable.model], ['variable', null, 'gpt-5-mini']);
    assert.equal(variable.text, `export OPENAI_BASE_URL=${gw.url}/v1\nexport OPENAI_API_KEY="$TOLLGATE_KEY"\n`);
    const codex = await call('shellEnv', { params: { target: 'codex' }, body: { model: 'gpt-4.1-mini' } });
    assert.match(
      codex.text,
      /^export TOLLGATE_API_KEY="\$TOLLGATE_KEY"\nalias codex='codex -c model_provider=tollgate .* -m gpt-4\.1-mini'\n$/,
    );

    const created = await call('shellEnv', { params: { target: 'aider' }, body: { newKey: true } });
    assert.deepEqual([created.keySource, created.keyName], ['created', 'aider']);
    const made = /OPENAI_API_KEY=(\S+)/.exec(created.text)![1]!;
    assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${made}` } })).status, 200);
    assert.equal(
      (await refusal(call('shellEnv', { params: { target: 'aider' }, body: { newKey: true } }))).code,
      'name_taken',
    );
    assert.equal((await refusal(call('shellEnv', { params: { target: 'openai' }, body: { key: 'x' } }))).status, 400);
    const unknown = await refusal(call('shellEnv', { params: { target: 'emacs' }, body: {} }));
    assert.deepEqual([unknown.status, unknown.code], [404, 'unknown_tool']);

    // The key in the file replaced by hand: there is no secret of Tollgate's to print.
    const path = join(gw.home, '.claude/settings.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(secret, 'sk-mine'));
    const gone = await refusal(call('shellEnv', { params: { target: 'claude' }, body: {} }));
    assert.deepEqual([gone.status, gone.code], [409, 'key_not_in_files']);
  });
});

test("the tools' own folder variables are honoured (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME)", async () => {
  const base = join(process.env.TMPDIR ?? '/tmp', `tollgate-dirs-${process.pid}`);
  await withGateway(
    async (gw, call) => {
      const done = await Promise.all(
        ['claude', 'codex', 'gemini'].map((tool) => call('connectTool', { params: { tool }, body: {} })),
      );
      assert.deepEqual(
        done.flatMap((d) => d.files.map((f) => f.path)),
        [
          join(base, 'claude/settings.json'),
          join(base, 'codex/config.toml'),
          join(base, 'gemini/.gemini/settings.json'),
          join(base, 'gemini/.gemini/.env'),
        ],
      );
      assert.equal(existsSync(join(gw.home, '.claude')), false);
      for (const tool of ['claude', 'codex', 'gemini']) await call('disconnectTool', { params: { tool } });
      assert.deepEqual(existsSync(base) ? readdirSync(base) : [], [], 'every folder connect made is gone again');
    },
    { CLAUDE_CONFIG_DIR: join(base, 'claude'), CODEX_HOME: join(base, 'codex'), GEMINI_CLI_HOME: join(base, 'gemini') },
  );
  rmSync(base, { recursive: true, force: true });
});

test('two connects of one tool at once: one after the other, one key', async () => {
  await withGateway(async (_gw, call) => {
    const [a, b] = await Promise.all([
      call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-5-mini' } }),
      call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-4.1-mini' } }),
    ]);
    assert.deepEqual([a.key.action, b.key.action], ['create', 'reuse']);
    assert.deepEqual(await keyNames(call), ['codex']);
    assert.equal((await call('connectStatus')).tools.find((t) => t.tool === 'codex')!.model, 'gpt-4.1-mini');
  });
});

test('no secret lands in the data dir (config, ledger, connect records, backups) or the log, even after a forced disconnect', async () => {
  await withGateway(async (gw, call) => {
    put(gw.home, '.codex/config.toml', 'model = "o3"\n');
    await call('connectTool', { params: { tool: 'codex' }, body: { model: 'gpt-4.1-mini' } });
    await call('connectTool', { params: { tool: 'claude' }, body: { model: 'gpt-4.1-mini' } });
    const codexSecret = /experimental_bearer_token = "(sk-\w+)"/.exec(
      readFileSync(join(gw.home, '.codex/config.toml'), 'utf8'),
    )![1]!;
    const claudeSecret = (
      JSON.parse(readFileSync(join(gw.home, '.claude/settings.json'), 'utf8')) as { env: Record<string, string> }
    ).env.ANTHROPIC_AUTH_TOKEN!;
    for (const secret of [codexSecret, claudeSecret]) {
      await gw
        .openai(secret)
        .chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
    }
    // A hand edit, then a forced disconnect: the file as it was is kept next to the backups.
    const config = join(gw.home, '.codex/config.toml');
    writeFileSync(config, readFileSync(config, 'utf8') + '# my edit\n');
    const forced = await call('disconnectTool', { params: { tool: 'codex' }, query: { force: true } });
    assert.equal(forced.files[0]!.action, 'restored');
    const kept = forced.files[0]!.notes.join(' ');
    assert.match(kept, /the file as it was is kept at/);
    const keptPath = /kept at (\S+)$/.exec(kept)![1]!;
    assert.match(
      readFileSync(keptPath, 'utf8'),
      new RegExp(`experimental_bearer_token = "sk-…${codexSecret.slice(-4)}"\\n[^]*# my edit`),
    );

    const logs = await call('listLogs', { query: {} });
    assert.equal(logs.entries.length, 2);
    const everything = [
      ...filesUnder(gw.dataDir).map((f) => readFileSync(f).toString('latin1')),
      JSON.stringify(logs),
      JSON.stringify(await call('connectStatus')),
      JSON.stringify(await call('listKeys')),
    ].join('\n');
    for (const secret of [codexSecret, claudeSecret])
      assert.ok(!everything.includes(secret), `secret …${secret.slice(-4)} found`);
    assert.ok(filesUnder(join(gw.dataDir, 'connect')).length >= 3, 'records and backups were scanned');
  });
});
