/**
 * OpenCode as connect wires it: the global config file it reads (and which of its three names),
 * the `tollgate` provider with the models keyed by id, a reconnect that moves the model taking the
 * old model's entry out again, status checking the entries whose path holds a model id, and the
 * snippet and `tollgate env` giving the same provider.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'jsonc-parser';
import {
  connectStatus,
  connectTool,
  disconnectTool,
  planConnect,
  shellExports,
  snippets,
} from '../../gateway/connect/index.js';
import { sandbox, SECRET, type Sandbox } from './fixture.js';

const run = promisify(execFile);
const ORIGIN = 'http://127.0.0.1:4141';
const WIRING = { origin: ORIGIN, secret: SECRET, model: 'gpt-5', smallModel: 'gpt-5-mini' };
const FILE = '.config/opencode/opencode.json';

/** The user's own OpenCode config: comments, a provider of theirs, a setting Tollgate knows nothing about. */
const USER_CONFIG = `{
  "$schema": "https://opencode.ai/config.json",
  // mine
  "theme": "tokyonight",
  "provider": {
    "ollama": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "http://localhost:11434/v1" } }
  }
}
`;

async function withBox(fn: (box: Sandbox) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const box = sandbox(env);
  try {
    await fn(box);
  } finally {
    box.done();
  }
}

test('the config file is the one OpenCode applies last in its global folder, honouring XDG_CONFIG_HOME', async () => {
  await withBox(async (box) => {
    const path = async (): Promise<string> => (await planConnect(box, 'opencode', WIRING)).files[0]!.path;
    assert.equal(await path(), box.path(FILE), 'none yet: opencode.json, the name its docs give');
    box.write('.config/opencode/config.json', '{}\n');
    assert.equal(await path(), box.path('.config/opencode/config.json'), 'the legacy name, when it is the only one');
    box.write(FILE, '{}\n');
    assert.equal(await path(), box.path(FILE));
    box.write('.config/opencode/opencode.jsonc', '{}\n');
    assert.equal(await path(), box.path('.config/opencode/opencode.jsonc'), 'opencode.jsonc is merged last');
  });
  const box = sandbox();
  try {
    box.env = { XDG_CONFIG_HOME: join(box.root, 'xdg') };
    const plan = await planConnect(box, 'opencode', WIRING);
    assert.equal(plan.files[0]!.path, join(box.root, 'xdg', 'opencode', 'opencode.json'));
  } finally {
    box.done();
  }
});

test('connect adds the tollgate provider and the models next to the user’s own; disconnect puts the bytes back', async () => {
  await withBox(async (box) => {
    box.write(FILE, USER_CONFIG);
    const { plan } = await connectTool(box, { tool: 'opencode', wiring: WIRING, keyName: 'opencode' });
    assert.ok(!plan.files[0]!.diff.includes(SECRET), 'the key is masked in the diff');
    const text = box.read(FILE);
    assert.ok(text.startsWith(USER_CONFIG.split('\n').slice(0, 4).join('\n')), 'comments and settings kept');
    const doc = parse(text) as any;
    assert.equal(doc.model, 'tollgate/gpt-5');
    assert.equal(doc.small_model, 'tollgate/gpt-5-mini');
    assert.deepEqual(doc.provider.ollama, {
      npm: '@ai-sdk/openai-compatible',
      options: { baseURL: 'http://localhost:11434/v1' },
    });
    assert.deepEqual(doc.provider.tollgate, {
      npm: '@ai-sdk/openai-compatible',
      name: 'Tollgate',
      options: { baseURL: `${ORIGIN}/v1`, apiKey: SECRET },
      models: { 'gpt-5': { name: 'gpt-5' }, 'gpt-5-mini': { name: 'gpt-5-mini' } },
    });
    const [status] = (await connectStatus(box)).filter((s) => s.tool === 'opencode');
    assert.deepEqual([status!.connected, status!.matches, status!.baseUrl], [true, true, `${ORIGIN}/v1`]);
    const result = await disconnectTool(box, 'opencode');
    assert.equal(result.files[0]!.action, 'restored');
    assert.equal(box.read(FILE), USER_CONFIG);
  });
});

test('a reconnect with other models takes the old models out; status checks the entries keyed by model', async () => {
  await withBox(async (box) => {
    box.write(FILE, USER_CONFIG);
    await connectTool(box, { tool: 'opencode', wiring: WIRING, keyName: 'opencode' });
    const moved = { ...WIRING, model: 'claude-sonnet-4-6', smallModel: 'claude-haiku-4-5' };
    const preview = await planConnect(box, 'opencode', moved);
    assert.match(preview.files[0]!.diff, /^-.*"gpt-5-mini": \{/m, 'the preview shows the old model going');
    await connectTool(box, { tool: 'opencode', wiring: moved, keyName: 'opencode' });
    const doc = parse(box.read(FILE)) as any;
    assert.deepEqual(Object.keys(doc.provider.tollgate.models), ['claude-sonnet-4-6', 'claude-haiku-4-5']);
    assert.equal(doc.model, 'tollgate/claude-sonnet-4-6');

    // A model entry changed by hand is a problem status names, though its path holds a model id.
    box.write(FILE, box.read(FILE).replace('"name": "claude-haiku-4-5"', '"name": "Haiku"'));
    const [status] = (await connectStatus(box)).filter((s) => s.tool === 'opencode');
    assert.equal(status!.matches, false);
    assert.deepEqual(status!.problems, [
      `a setting (provider.tollgate.models.claude-haiku-4-5.name) in ${box.path(FILE)} was changed by hand to "Haiku"`,
    ]);

    // Edited since: only Tollgate's entries go (the hand-edited one stays, as the user's), the rest is kept.
    const result = await disconnectTool(box, 'opencode');
    assert.equal(result.files[0]!.action, 'cleaned');
    const left = parse(box.read(FILE)) as any;
    assert.deepEqual(left.provider.tollgate, { models: { 'claude-haiku-4-5': { name: 'Haiku' } } });
    assert.equal(left.model, undefined);
    assert.equal(left.theme, 'tokyonight');
    assert.ok(left.provider.ollama);
  });
});

test('connect into a home without OpenCode config creates opencode.json; disconnect removes it', async () => {
  await withBox(async (box) => {
    const { record } = await connectTool(box, { tool: 'opencode', wiring: WIRING, keyName: 'opencode' });
    assert.equal(box.mode(FILE), 0o600, 'a new file holding the key is private');
    assert.deepEqual(record.files[0]!.createdDirs, [box.path('.config'), box.path('.config/opencode')]);
    await disconnectTool(box, 'opencode');
    assert.equal(existsSync(box.path('.config')), false);
  });
});

test('the OpenCode snippet is what connect writes, with the key as {env:TOLLGATE_KEY}', async () => {
  await withBox(async (box) => {
    await connectTool(box, {
      tool: 'opencode',
      wiring: { origin: ORIGIN, secret: SECRET, model: 'm-1', smallModel: 'm-1' },
      keyName: 'opencode',
    });
    const written = parse(box.read(FILE)) as any;
    written.provider.tollgate.options.apiKey = '{env:TOLLGATE_KEY}';
    const snippet = JSON.parse(snippets({ origin: ORIGIN, model: 'm-1' }).find((s) => s.id === 'opencode')!.text);
    assert.deepEqual(snippet, written);
    assert.equal(snippet.$schema, 'https://opencode.ai/config.json');
  });
});

test('tollgate env opencode gives the same provider inline, the key through OpenCode’s {env:…}', async () => {
  const out = shellExports('opencode', { origin: ORIGIN, secret: "sk-it's", model: 'gpt-5', smallModel: 'gpt-5-mini' });
  const { stdout } = await run('bash', [
    '-c',
    `${out}\nprintf '%s\\n%s' "$TOLLGATE_API_KEY" "$OPENCODE_CONFIG_CONTENT"`,
  ]);
  const [key, config] = stdout.split('\n');
  assert.equal(key, "sk-it's");
  const inline = JSON.parse(config!);
  assert.equal(inline.model, 'tollgate/gpt-5');
  assert.deepEqual(inline.provider.tollgate.options, { baseURL: `${ORIGIN}/v1`, apiKey: '{env:TOLLGATE_API_KEY}' });
  const viaVar = shellExports(
    'opencode',
    { origin: ORIGIN, secret: SECRET, model: 'gpt-5' },
    { secretFromVar: 'TOLLGATE_KEY' },
  );
  assert.ok(viaVar.startsWith('export TOLLGATE_API_KEY="$TOLLGATE_KEY"\n'), viaVar);
});
