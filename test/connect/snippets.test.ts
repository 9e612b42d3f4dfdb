/**
 * Snippets carry the base-URL form their client needs, never a secret, and the ones this repo
 * can run (the three Node SDKs and curl) are run as written against a real gateway.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ENV_TARGETS, shellExports, snippets } from '../../gateway/connect/index.js';
import { REPO, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import { SECRET } from './fixture.js';

const run = promisify(execFile);
const ORIGIN = 'http://127.0.0.1:4141';
const V1 = new Set(['openai-node', 'openai-python', 'curl', 'opencode', 'aider', 'continue', 'cline', 'cursor']);

test('each snippet has its client’s base-URL form and no secret', () => {
  const all = snippets({ origin: ORIGIN + '/', model: 'm-1' });
  assert.deepEqual(
    all.map((s) => s.id),
    [
      'openai-node',
      'openai-python',
      'anthropic-node',
      'anthropic-python',
      'google-node',
      'google-python',
      'curl',
      'opencode',
      'aider',
      'continue',
      'cline',
      'cursor',
    ],
  );
  for (const s of all) {
    const want = V1.has(s.id) ? `${ORIGIN}/v1` : ORIGIN;
    assert.equal(s.baseUrl, want, s.id);
    assert.ok(s.text.includes(want), `${s.id} holds ${want}`);
    if (!V1.has(s.id)) assert.ok(!s.text.includes(`${ORIGIN}/v1`), `${s.id} must not add /v1`);
    assert.ok(!s.text.includes('/v1/v1'), s.id);
    assert.ok(!/sk-[A-Za-z0-9]{8}/.test(s.text), `${s.id} holds no key`);
    assert.ok(s.text.includes('m-1'), `${s.id} names the model`);
  }
  assert.match(all.find((s) => s.id === 'cursor')!.note!, /cannot reach a gateway on 127\.0\.0\.1/);
  assert.deepEqual(JSON.parse(all.find((s) => s.id === 'opencode')!.text).provider.tollgate.options, {
    baseURL: `${ORIGIN}/v1`,
    apiKey: '{env:TOLLGATE_KEY}',
  });
});

test('tollgate env prints exports a shell reads back exactly', async () => {
  assert.deepEqual(ENV_TARGETS, [
    'claude-code',
    'codex',
    'gemini-cli',
    'opencode',
    'openai',
    'anthropic',
    'google',
    'aider',
  ]);
  const tricky = "sk-it's";
  const out = shellExports('claude-code', { origin: ORIGIN, secret: tricky, model: 'a b', smallModel: 'small' });
  const { stdout } = await run('bash', [
    '-c',
    `${out}\nprintf '%s|%s|%s|%s' "$ANTHROPIC_BASE_URL" "$ANTHROPIC_AUTH_TOKEN" "$ANTHROPIC_MODEL" "$ANTHROPIC_DEFAULT_HAIKU_MODEL"`,
  ]);
  assert.equal(stdout, `${ORIGIN}|${tricky}|a b|small`);
  const openai = shellExports('openai', { origin: ORIGIN, secret: SECRET, model: 'm' });
  assert.equal(openai, `export OPENAI_BASE_URL=${ORIGIN}/v1\nexport OPENAI_API_KEY=${SECRET}\n`);
  assert.throws(
    () => shellExports('emacs', { origin: ORIGIN, secret: SECRET, model: 'm' }),
    /Choose one of: claude-code, codex/,
  );
});

test('tollgate env codex defines the provider for one shell with an alias Codex accepts', async () => {
  const out = shellExports('codex', { origin: ORIGIN, secret: SECRET, model: 'gpt-4.1' });
  assert.ok(out.startsWith(`export TOLLGATE_API_KEY=${SECRET}\nalias codex=`), out);
  const { stdout } = await run('bash', ['-O', 'expand_aliases', '-c', `${out}\nalias codex`]);
  assert.ok(stdout.includes(`-c model_providers.tollgate.base_url=${ORIGIN}/v1`), stdout);
  assert.ok(stdout.includes('-c model_providers.tollgate.env_key=TOLLGATE_API_KEY'), stdout);
  assert.ok(stdout.includes('-m gpt-4.1'), stdout);
});

let mock: MockUpstream;
let gw: TestGateway;
let key: string;

before(async () => {
  mock = await startMockUpstream();
  gw = await startGateway();
  await gw.admin.topup(5);
  await gw.admin.line({ name: 'openai', baseUrl: `${mock.url}/v1`, models: ['gpt-4.1-mini'] });
  key = await gw.admin.key('snippets');
});

after(async () => {
  await gw.close();
  await mock.close();
});

for (const id of ['openai-node', 'anthropic-node', 'google-node', 'curl']) {
  test(`the ${id} snippet runs as written against Tollgate`, async () => {
    const snippet = snippets({ origin: gw.url, model: 'gpt-4.1-mini' }).find((s) => s.id === id)!;
    const env = { PATH: process.env.PATH, TOLLGATE_KEY: key };
    const { stdout } =
      id === 'curl'
        ? await run('bash', ['-c', snippet.text], { env })
        : await run(process.execPath, ['--input-type=module', '-e', snippet.text], { cwd: REPO, env });
    assert.match(stdout, /mock reply to: Hello/);
  });
}
