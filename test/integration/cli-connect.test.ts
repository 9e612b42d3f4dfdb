/**
 * `tollgate connect`, `disconnect` and `env` as a user runs them, against a running gateway whose
 * tools live in a temporary HOME: the diff first, a question on a terminal (`script` gives one),
 * `--yes` for scripts, clear errors, status after a hand edit, and the files back afterwards.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', join(REPO, 'gateway/cli/main.ts')];
let gw: TestGateway;
let mock: MockUpstream;

interface Result {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs the CLI with standard input a pipe (not a terminal), as a script does. */
async function tollgate(args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, ...args], {
      cwd: REPO,
      env: { ...process.env, TOLLGATE_DATA_DIR: gw.dataDir },
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `answer`. */
function onTerminal(args: string[], answer: string): Promise<{ output: string; code: number | null }> {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, ...CLI, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: REPO,
      env: { ...process.env, TOLLGATE_DATA_DIR: gw.dataDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('[y/N]') && !child.stdin.writableEnded) child.stdin.end(`${answer}\n`);
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ output, code }));
  });
}

const hasScript = ((): boolean => {
  try {
    execFileSync('script', ['-qec', 'true', '/dev/null'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const SETTINGS = '{\n  // mine\n  "permissions": { "allow": ["Read"] }\n}\n';
let settings: string;

before(async () => {
  gw = await startGateway();
  mock = await startMockUpstream();
  await gw.admin.line({
    name: 'anthropic',
    protocol: 'anthropic',
    baseUrl: mock.url,
    models: ['claude-sonnet-4-6', 'claude-haiku-4-5'],
  });
  await gw.admin.line({ name: 'openai', baseUrl: `${mock.url}/v1`, models: ['gpt-4.1-mini', 'gpt-5-mini'] });
  mkdirSync(join(gw.home, '.claude'));
  settings = join(gw.home, '.claude/settings.json');
  writeFileSync(settings, SETTINGS);
});

after(async () => {
  await gw.close();
  await mock.close();
});

test('connect --dry-run shows the diff with the key to come and writes nothing', async () => {
  const r = await tollgate(['connect', 'claude', '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^Claude Code → http:\/\/127\.0\.0\.1:\d+\n {2}key: {3}claude-code: a new key\n {2}model: claude-sonnet-4-6, small\/fast model claude-haiku-4-5\n/,
  );
  assert.match(r.stdout, /\+ {4}"ANTHROPIC_AUTH_TOKEN": "<new key claude-code>",/);
  assert.match(r.stdout, /Dry run: nothing was written and no key was created\.\n$/);
  assert.equal(readFileSync(settings, 'utf8'), SETTINGS);
  assert.deepEqual((await gw.admin.client.call('listKeys')).keys, []);
});

test('without a terminal and without --yes, connect shows the diff and refuses to write', async () => {
  const r = await tollgate(['connect', 'claude-code']);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /"ANTHROPIC_AUTH_TOKEN": "<new key claude-code>"/);
  assert.match(r.stderr, /Nothing was written: standard input is not a terminal.*--yes/);
  assert.equal(readFileSync(settings, 'utf8'), SETTINGS);
  assert.deepEqual((await gw.admin.client.call('listKeys')).keys, []);
});

test(
  'on a terminal connect asks; "n" writes nothing, "y" writes what was shown',
  { skip: hasScript ? false : 'needs util-linux script for a terminal' },
  async () => {
    const no = await onTerminal(['connect', 'gemini'], 'n');
    assert.match(no.output, /Write these changes\? \[y\/N\]/);
    assert.match(no.output, /Nothing was written\./);
    assert.equal(existsSync(join(gw.home, '.gemini')), false);
    const yes = await onTerminal(['connect', 'gemini', '--model', 'gpt-4.1-mini'], 'y');
    assert.equal(yes.code, 0, yes.output);
    assert.match(
      yes.output,
      /Connected Gemini CLI to http:\/\/127\.0\.0\.1:\d+ with the key "gemini-cli" \(sk-…\w{4}\)\./,
    );
    assert.match(
      readFileSync(join(gw.home, '.gemini/.env'), 'utf8'),
      /^GEMINI_API_KEY=sk-\w{48}\nGOOGLE_GEMINI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\n$/,
    );
    assert.equal((await tollgate(['disconnect', 'gemini'])).code, 0);
    assert.equal(existsSync(join(gw.home, '.gemini')), false);
  },
);

test('connect --yes writes, --status shows it, a hand edit is named, disconnect undoes it', async () => {
  const r = await tollgate(['connect', 'claude', '--model', 'gpt-5-mini', '--small-model', 'gpt-4.1-mini', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /Connected Claude Code to http:\/\/127\.0\.0\.1:\d+ with the key "claude-code" \(sk-…\w{4}\)\.\n/,
  );
  assert.match(
    r.stdout,
    /settings\.json: changed; as it was, it is kept at .*connect\/backups\/claude-code\/settings\.before\./,
  );
  assert.match(r.stdout, /Undo: tollgate disconnect claude-code\n$/);
  assert.ok(!/sk-\w{48}/.test(r.stdout + r.stderr), 'no secret printed');
  const written = readFileSync(settings, 'utf8');
  assert.ok(written.startsWith('{\n  // mine\n  "permissions": { "allow": ["Read"] },\n  "env": {\n'), written);

  const status = await tollgate(['connect', '--status']);
  assert.match(
    status.stdout,
    /^TOOL +STATE +KEY +MODEL +BASE URL\nclaude-code +connected +claude-code +gpt-5-mini \(small: gpt-4\.1-mini\) +http:\/\/127\.0\.0\.1:\d+\ncodex +not connected +- +- +-\n/,
  );
  writeFileSync(settings, written.replace('"ANTHROPIC_MODEL": "gpt-5-mini"', '"ANTHROPIC_MODEL": "claude-haiku-4-5"'));
  const edited = await tollgate(['connect', '--status']);
  assert.match(edited.stdout, /claude-code +connected, 1 problem +claude-code/);
  assert.ok(
    edited.stdout.includes(
      `  claude-code: the model (env.ANTHROPIC_MODEL) in ${settings} was changed by hand to "claude-haiku-4-5"\n`,
    ),
    edited.stdout,
  );
  const asJson = JSON.parse((await tollgate(['connect', '--status', '--json'])).stdout) as {
    tools: Array<{ tool: string; matches: boolean }>;
  };
  assert.deepEqual(
    asJson.tools.map((t) => [t.tool, t.matches]),
    [
      ['claude-code', false],
      ['codex', false],
      ['gemini-cli', false],
      ['opencode', false],
    ],
  );

  const env = await tollgate(['env', 'claude']);
  assert.equal(env.code, 0, env.stderr);
  assert.match(
    env.stdout,
    /^export ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nexport ANTHROPIC_AUTH_TOKEN=sk-\w{48}\n/,
  );

  const undo = await tollgate(['disconnect', 'claude']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.match(
    undo.stdout,
    /^Disconnected Claude Code\.\n {2}.*settings\.json: edited since connect: only Tollgate's entries taken out\n/,
  );
  assert.match(undo.stdout, /kept env\.ANTHROPIC_MODEL: changed by hand to "claude-haiku-4-5" since connect/);
  assert.match(undo.stdout, /Key "claude-code" deleted: it was made for Claude Code/);
  assert.equal(
    readFileSync(settings, 'utf8'),
    '{\n  // mine\n  "permissions": { "allow": ["Read"] },\n  "env": {\n    "ANTHROPIC_MODEL": "claude-haiku-4-5"\n  }\n}\n',
  );
  writeFileSync(settings, SETTINGS);
});

test('a connect then disconnect with nothing edited between gives the file back byte for byte', async () => {
  assert.equal((await tollgate(['connect', 'claude', '--yes'])).code, 0);
  const undo = await tollgate(['disconnect', 'claude-code', '--json']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual((JSON.parse(undo.stdout) as { files: unknown }).files, [
    { path: settings, action: 'restored', notes: [] },
  ]);
  assert.equal(readFileSync(settings, 'utf8'), SETTINGS);
});

test('clear errors: unknown tool, model not served, never connected, missing or extra arguments', async () => {
  const unknown = await tollgate(['connect', 'vim', '--dry-run']);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /^tollgate: Unknown tool "vim"\. Tollgate connects claude-code \(or claude\), codex, gemini-cli \(or gemini\), opencode;/,
  );
  const model = await tollgate(['connect', 'codex', '--model', 'o3', '--dry-run']);
  assert.equal(model.code, 1);
  assert.equal(
    model.stderr,
    'tollgate: No line serves o3, so Codex CLI would get errors with it. Models your lines serve: claude-sonnet-4-6, claude-haiku-4-5, gpt-5-mini, gpt-4.1-mini.\n',
  );
  const never = await tollgate(['disconnect', 'codex']);
  assert.equal(never.code, 1);
  assert.equal(never.stderr, 'tollgate: Codex CLI was not connected by Tollgate, so there is nothing to undo.\n');
  const none = await tollgate(['connect']);
  assert.match(
    none.stderr,
    /Name a tool to connect: claude-code \(or claude\), codex, gemini-cli \(or gemini\), opencode\. "tollgate connect --status" shows/,
  );
  assert.match((await tollgate(['connect', 'codex', '--status'])).stderr, /--status takes no tool name/);
  assert.match((await tollgate(['env', 'openai', '--key', 'k'])).stderr, /--key names the key --new-key creates/);
  assert.match(
    (await tollgate(['env', 'emacs'])).stderr,
    /No environment for "emacs"\. Choose one of: claude-code, codex, gemini-cli, opencode, openai, anthropic, google, aider/,
  );
});

test('env without a connected tool refers to $TOLLGATE_KEY; --new-key makes one; --snippets prints setup for other clients', async () => {
  const openai = await tollgate(['env', 'openai']);
  assert.equal(openai.stdout, `export OPENAI_BASE_URL=${gw.url}/v1\nexport OPENAI_API_KEY="$TOLLGATE_KEY"\n`);
  assert.match(openai.stderr, /Tollgate holds no key for openai, so the lines use \$TOLLGATE_KEY/);
  const made = await tollgate(['env', 'anthropic', '--new-key', '--key', 'sdk']);
  assert.match(
    made.stdout,
    /^export ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nexport ANTHROPIC_API_KEY=sk-\w{48}\n$/,
  );
  assert.match(made.stderr, /Key "sdk" created; its secret is in the lines above and is not shown again\./);
  const snippets = await tollgate(['connect', '--snippets', '--model', 'gpt-4.1-mini']);
  assert.equal(snippets.code, 0, snippets.stderr);
  assert.match(
    snippets.stdout,
    /## OpenAI SDK \(Node\) \(base URL http:\/\/127\.0\.0\.1:\d+\/v1\)\n\nimport OpenAI from 'openai';/,
  );
  assert.match(snippets.stdout, /## Cursor .*\n[^]*cannot reach a gateway on 127\.0\.0\.1/);
});
